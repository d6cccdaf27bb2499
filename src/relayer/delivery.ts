// One attempt to deliver one message: screen it again (the keys may have changed since it was
// seen), ask the destination whether it already has it, sign it for the destination's rules,
// and send it. Every step that changes what is known is written to the store first, with a
// conditional update, so a second writer (a standby that took the route over) is noticed rather
// than overwritten; and every broadcast is preceded by a lease check and a durable record of the
// transaction (the `record` callback), so a restart or a standby waits for it instead of paying
// twice.
import { untilAborted } from '../util/abortable.js';
import { backoffDelay } from './backoff.js';
import { reasonOf, RelayerError } from './errors.js';
import { emit, type RelayerEvents } from './events.js';
import type { RelayerLimits, RelayerLogger, Route } from './options.js';
import type { MessageDestination, MessageRecord, RelayerStore, RouteLeases, SignMessage } from './ports.js';
import { skipReason } from './screen.js';

export interface DeliveryContext {
  readonly route: Route;
  readonly destination: MessageDestination;
  readonly sign: SignMessage;
  readonly store: RelayerStore;
  readonly leases: RouteLeases;
  readonly limits: RelayerLimits;
  readonly logger: RelayerLogger;
  readonly events: RelayerEvents;
  readonly now: () => number;
}

/** What the route does next with the message. */
type AttemptResult =
  /** Delivered or skipped: finished. Or another writer owns the record now. */
  | { readonly kind: 'done' }
  /** Failed; try again in `delayMs` (kept in memory). */
  | { readonly kind: 'again'; readonly delayMs: number }
  /** Set aside in the store until its nextAttemptAt. */
  | { readonly kind: 'parked' }
  /** Stopped (stop()'s deadline) or the lease is not held: the record stays as it is. */
  | { readonly kind: 'interrupted'; readonly reason: string };

export async function attemptDelivery(ctx: DeliveryContext, record: MessageRecord, signal: AbortSignal): Promise<AttemptResult> {
  const { route, destination, store, limits, events } = ctx;
  const id = record.message.warpMessageId;
  let current = record;
  const onEventError = (err: unknown): void => ctx.logger.warn({ err: reasonOf(err) }, 'relayer: an event handler threw');
  const write = async (changes: Partial<Omit<MessageRecord, 'version'>>): Promise<void> => {
    const { version, ...rest } = current;
    const next = { ...rest, ...changes, updatedAt: ctx.now() };
    if (!(await store.update(id, version, next))) throw new RelayerError('conflict', `message ${id} was changed by another writer`);
    current = { ...next, version: version + 1 };
  };
  const call = <T>(work: (s: AbortSignal) => Promise<T>, timeoutMs = limits.rpcTimeoutMs): Promise<T> => {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    return untilAborted(work(deadline), deadline);
  };
  const skip = async (reason: string): Promise<AttemptResult> => {
    await write({ status: 'skipped', reason, nextAttemptAt: undefined });
    emit(events, 'outcome', [route.id, 'skipped', reason], onEventError);
    ctx.logger.info({ route: route.id, warpMessageId: id, reason }, 'relayer: message skipped');
    return { kind: 'done' };
  };

  try {
    if (!current.submissions.length) {
      const reason = skipReason(route, current.message, destination.relayerAddresses());
      if (reason) return await skip(reason);
      if (await call((s) => destination.messageReceived(current.message.teleporterMessageId, s))) return await skip('already delivered');
    }
    // A signature from before a failed attempt may be what failed (a validator set that moved on).
    let signed = current.attempts === 0 ? current.signedMessage : undefined;
    if (!signed) {
      const rules = await call((s) => destination.warpRules(s));
      const started = ctx.now();
      const result = await call((s) => ctx.sign(current.message.unsignedMessage, { blockchainId: route.destinationBlockchainId, rules }, s), limits.signTimeoutMs);
      emit(events, 'aggregation', [route.id, (ctx.now() - started) / 1000, result.signers], onEventError);
      signed = result.signedMessage;
      await write({ status: current.submissions.length ? 'submitted' : 'signed', signedMessage: signed });
    }
    const outcome = await untilAborted(
      destination.deliver(current.message, signed, {
        pending: current.submissions,
        signal,
        record: async (submission) => {
          if (signal.aborted) throw new RelayerError('stopping', 'the relayer is stopping: nothing more is broadcast');
          if (!ctx.leases.holds(route.id, limits.leaseMarginMs)) {
            throw new RelayerError('lease-lost', `route ${route.id}: lease not held with ${limits.leaseMarginMs} ms to spare; not broadcasting`);
          }
          await write({ status: 'submitted', submissions: [...current.submissions, submission] });
        },
      }),
      signal,
    );
    switch (outcome.kind) {
      case 'delivered':
      case 'delivered-by-other': {
        const by = outcome.kind === 'delivered' ? { deliveredTxHash: outcome.txHash, gasUsed: outcome.gasUsed.toString() } : { deliveredTxHash: outcome.txHash };
        await write({ status: 'delivered', ...by, reason: outcome.kind === 'delivered' ? undefined : 'delivered by another relayer', nextAttemptAt: undefined });
        emit(events, 'outcome', [route.id, outcome.kind], onEventError);
        emit(events, 'deliveryLatency', [route.id, Math.max(0, ctx.now() - current.firstSeenAt) / 1000], onEventError);
        if (outcome.kind === 'delivered') emit(events, 'gasUsed', [route.id, outcome.gasUsed], onEventError);
        ctx.logger.info({ route: route.id, warpMessageId: id, txHash: outcome.txHash, by: outcome.kind }, 'relayer: message delivered');
        return { kind: 'done' };
      }
      case 'retry':
        return await failed(outcome.reason, false);
      case 'failed':
        return await failed(outcome.reason, true);
    }
  } catch (err) {
    if (err instanceof RelayerError && err.code === 'conflict') {
      ctx.logger.warn({ route: route.id, warpMessageId: id }, 'relayer: message changed by another writer; leaving it to them');
      return { kind: 'done' };
    }
    if (signal.aborted) return { kind: 'interrupted', reason: 'stopping' };
    if (err instanceof RelayerError && (err.code === 'lease-lost' || err.code === 'stopping')) return { kind: 'interrupted', reason: err.message };
    try {
      return await failed(reasonOf(err), false);
    } catch (writeErr) {
      // The attempt's own failure, too: a conflict here often means a write of ours that timed out was applied after all.
      ctx.logger.error({ route: route.id, warpMessageId: id, err: reasonOf(writeErr), attemptFailedWith: reasonOf(err) }, 'relayer: could not record a failed attempt');
      return { kind: 'again', delayMs: backoffDelay(limits.retry, current.attempts + 1) };
    }
  }

  /** Retries soon a few times, then parks; `hopeless` parks at once, at the longest delay. */
  async function failed(reason: string, hopeless: boolean): Promise<AttemptResult> {
    const attempts = current.attempts + 1;
    emit(events, 'retry', [route.id, reason], onEventError);
    if (!hopeless && attempts < limits.retry.attemptsBeforePark) {
      await write({ attempts, reason });
      const delayMs = backoffDelay(limits.retry, attempts);
      ctx.logger.warn({ route: route.id, warpMessageId: id, reason, attempts, retryInMs: delayMs }, 'relayer: delivery attempt failed');
      return { kind: 'again', delayMs };
    }
    const delay = hopeless ? limits.parked.maxMs : backoffDelay(limits.parked, attempts - limits.retry.attemptsBeforePark + 1);
    await write({ status: 'parked', attempts, reason, nextAttemptAt: ctx.now() + delay });
    emit(events, 'outcome', [route.id, 'parked', reason], onEventError);
    ctx.logger.warn({ route: route.id, warpMessageId: id, reason, attempts, retryInMs: delay }, 'relayer: message parked');
    return { kind: 'parked' };
  }
}
