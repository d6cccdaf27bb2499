// One route's reading of its source chain: from the checkpoint (or the configured start) catch up
// in bounded ranges, then follow live blocks; after a dropped subscription or any failure, wait
// (bounded backoff), subscribe again and catch up the gap. Each block's messages get a durable
// state (admitBlock) before the checkpoint passes the block, so a crash at any point re-reads at
// most the blocks after the checkpoint, and re-reading is harmless (insert keeps the first record).
import { sleep, untilAborted } from '../util/abortable.js';
import { backoffDelay } from './backoff.js';
import { reasonOf } from './errors.js';
import { LiveQueue } from './live-queue.js';
import type { RelayerLimits, RelayerLogger, Route } from './options.js';
import type { MessageDestination, MessageSource, RelayerStore, SourceBlock } from './ports.js';

export interface IngestContext {
  readonly route: Route;
  readonly source: MessageSource;
  readonly destination: MessageDestination;
  readonly store: RelayerStore;
  readonly limits: RelayerLimits;
  readonly logger: RelayerLogger;
  /** Gives each of the block's messages for this route a durable state. */
  admitBlock(block: SourceBlock, signal: AbortSignal): Promise<void>;
  /** Resolves once the route's backlog has room for more messages. */
  room(signal: AbortSignal): Promise<void>;
  /** The checkpoint was stored; `head` is the newest block the source reported. */
  checkpointed(height: number, head: number): void;
  /** Why the route is not running, or undefined once it is. */
  problem(reason: string | undefined): void;
}

/** Runs until `signal` aborts; never throws. */
export async function runIngest(ctx: IngestContext, signal: AbortSignal): Promise<void> {
  const { route, source, limits } = ctx;
  let failures = 0;
  let head = 0;
  const call = <T>(work: (s: AbortSignal) => Promise<T>): Promise<T> => {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(limits.rpcTimeoutMs)]);
    return untilAborted(work(deadline), deadline);
  };
  const advance = async (height: number): Promise<void> => {
    await ctx.store.advanceCheckpoint(route.id, height);
    ctx.checkpointed(height, Math.max(head, height));
  };
  const admit = async (block: SourceBlock): Promise<void> => {
    if (block.messages.length) {
      await ctx.room(signal);
      await ctx.admitBlock(block, signal);
    }
    await advance(block.number);
  };
  /** Reads [from, to] in ranges; returns the new checkpoint (`to`). */
  const catchUp = async (from: number, to: number): Promise<number> => {
    for (let start = from; start <= to; start += limits.catchUpRange) {
      const end = Math.min(to, start + limits.catchUpRange - 1);
      const blocks = await call((s) => source.blocksInRange(start, end, s));
      for (const block of [...blocks].sort((a, b) => a.number - b.number)) {
        if (block.number >= start && block.number <= end) await admit(block);
      }
      await advance(end);
    }
    return Math.max(from - 1, to);
  };
  /** The stored checkpoint, or the block before the configured start (stored, so a restart starts there too). */
  const startingCheckpoint = async (): Promise<number> => {
    const stored = await ctx.store.checkpoint(route.id);
    if (stored !== undefined) return stored;
    const start = route.startHeight === 'head' ? head : route.startHeight;
    const initial = Math.max(0, start - 1);
    await ctx.store.advanceCheckpoint(route.id, initial);
    return initial;
  };

  let destinationAnswered = false;
  while (!signal.aborted) {
    const live = new LiveQueue(limits.maxLiveBlocksQueued);
    let unsubscribe: (() => void) | undefined;
    try {
      if (!destinationAnswered) await call((s) => ctx.destination.warpRules(s)); // the route can run once it answers
      destinationAnswered = true;
      // Subscribe before catching up, so blocks accepted meanwhile wait in the queue: no gap.
      unsubscribe = source.subscribe({ onBlock: (b) => live.push(b), onDrop: (e) => live.drop(e) });
      head = await call((s) => source.head(s));
      let checkpoint = await startingCheckpoint();
      ctx.checkpointed(checkpoint, Math.max(head, checkpoint));
      ctx.problem(undefined); // both chains answered: the route runs (its lag shows the catch-up)
      if (head > checkpoint) checkpoint = await catchUp(checkpoint + 1, head);
      failures = 0;
      ctx.logger.info({ route: route.id, checkpoint, head }, 'relayer: route caught up, following live blocks');
      for (;;) {
        const block = await live.next(limits.idleCheckMs, signal);
        if (!block) {
          head = Math.max(head, await call((s) => source.head(s)));
          if (head > checkpoint) checkpoint = await catchUp(checkpoint + 1, head);
          continue;
        }
        head = Math.max(head, block.number);
        if (block.number <= checkpoint) continue;
        if (block.number > checkpoint + 1) checkpoint = await catchUp(checkpoint + 1, block.number - 1);
        await admit(block);
        checkpoint = block.number;
      }
    } catch (err) {
      if (signal.aborted) break;
      failures++;
      const reason = `source ${route.sourceBlockchainId} / destination ${route.destinationBlockchainId}: ${reasonOf(err)}`;
      ctx.problem(reason);
      const delay = backoffDelay(limits.reconnect, failures);
      ctx.logger.warn({ route: route.id, err: reasonOf(err), retryInMs: delay }, 'relayer: route interrupted; catching up again after a pause');
      await sleep(delay, signal).catch(() => undefined);
    } finally {
      unsubscribe?.();
    }
  }
}
