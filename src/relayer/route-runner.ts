// One route at work: its source reading (ingest.ts), a queue of messages waiting for delivery,
// at most maxInFlight deliveries at once (delivery.ts), quick retries on timers, and the parked
// messages' slow retries from the store. It runs only while the route's lease is held; losing
// the lease stops the reading and the queue (in-flight deliveries cannot broadcast any more:
// their record callback checks the lease), regaining it resumes from the store.
import type { Hex, MessageRecord, MessageStatus, SourceBlock, SourceMessage } from './ports.js';
import { attemptDelivery, type DeliveryContext } from './delivery.js';
import { reasonOf } from './errors.js';
import { emit } from './events.js';
import { runIngest, type IngestContext } from './ingest.js';
import type { RelayerOptions } from './options.js';
import { skipReason } from './screen.js';

const IN_PROGRESS: readonly MessageStatus[] = ['seen', 'signed', 'submitted'];
/** How many parked records one scan looks at. */
const PARKED_SCAN_LIMIT = 100_000;

export interface RunnerContext extends DeliveryContext {
  readonly source: RelayerOptions['sources'][string];
}

export class RouteRunner {
  held = false;
  checkpoint: number | undefined;
  head: number | undefined;
  problem: string | undefined = 'starting';
  private readonly queue: Hex[] = [];
  private readonly queued = new Set<Hex>();
  private readonly inFlight = new Map<Hex, Promise<void>>();
  private readonly retrying = new Map<Hex, NodeJS.Timeout>();
  private readonly parkedIds = new Set<Hex>();
  private roomWaiters: Array<() => void> = [];
  /** Aborted when the lease is lost or the relayer stops: reading, scanning, queueing end. */
  private term: AbortController | undefined;
  /** Aborted at stop()'s drain deadline: deliveries still running give up. */
  private readonly deliveries = new AbortController();
  private parkTimer: NodeJS.Timeout | undefined;
  private storeHasMore = false;
  private stopping = false;

  constructor(private readonly ctx: RunnerContext) {}

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get parkedCount(): number {
    return this.parkedIds.size;
  }

  /** The lease was gained or lost. */
  setHeld(held: boolean): void {
    if (this.stopping || held === this.held) return;
    this.held = held;
    if (held) this.begin();
    else this.end();
    this.ctx.logger.info({ route: this.ctx.route.id, held }, held ? 'relayer: route lease held' : 'relayer: route lease lost');
  }

  /** Gives each of the block's messages for this route a durable state, and queues those to deliver. */
  async admitBlock(block: SourceBlock): Promise<void> {
    const mine = block.messages.filter((m) => m.sourceBlockchainId === this.ctx.route.sourceBlockchainId && m.destinationBlockchainId === this.ctx.route.destinationBlockchainId);
    await Promise.all(mine.map((m) => this.admit(m)));
  }

  /** One message: stored as seen (queued) or skipped (with why), unless it is known already. */
  async admit(message: SourceMessage): Promise<MessageRecord> {
    const { route, now } = this.ctx;
    const reason = skipReason(route, message, this.ctx.destination.relayerAddresses());
    const at = now();
    const record: MessageRecord = { route: route.id, status: reason ? 'skipped' : 'seen', version: 1, message, submissions: [], attempts: 0, firstSeenAt: at, updatedAt: at, ...(reason ? { reason } : {}) };
    if (!(await this.ctx.store.insert(message.warpMessageId, record))) return (await this.ctx.store.get(message.warpMessageId)) ?? record;
    if (reason) emit(this.ctx.events, 'outcome', [route.id, 'skipped', reason], () => undefined);
    else this.enqueue(message.warpMessageId);
    return record;
  }

  /** Queues a message for delivery now (a manual relay of a parked one brings it forward). */
  enqueue(id: Hex, now = false): void {
    if (!this.term || this.stopping || this.queued.has(id) || this.inFlight.has(id)) return;
    const timer = this.retrying.get(id);
    if (timer && !now) return; // waiting out its backoff
    if (timer) {
      clearTimeout(timer);
      this.retrying.delete(id);
    }
    this.queue.push(id);
    this.queued.add(id);
    this.pump();
  }

  /** Resolves once fewer than maxBacklog messages wait (queued, in flight, or waiting to retry). */
  async room(signal: AbortSignal): Promise<void> {
    while (this.backlog() >= this.ctx.limits.maxBacklog) {
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.roomWaiters = this.roomWaiters.filter((w) => w !== wake);
          resolve();
        };
        const timer = setTimeout(wake, 1_000); // a deadline on every wait; the loop checks again
        this.roomWaiters.push(wake);
      });
    }
  }

  /** Stops taking messages, waits up to `drainMs` for deliveries in flight, then aborts them. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.end();
    const drained = Promise.allSettled([...this.inFlight.values()]);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.ctx.limits.drainMs)));
    const result = await Promise.race([drained, deadline]);
    clearTimeout(timer);
    if (result === 'late') {
      this.ctx.logger.warn({ route: this.ctx.route.id, inFlight: this.inFlight.size }, 'relayer: deliveries still in flight at the drain deadline; aborting them');
      this.deliveries.abort(new Error('relayer stopped'));
      await Promise.race([drained, new Promise((r) => setTimeout(r, Math.min(5_000, this.ctx.limits.drainMs)).unref())]);
    }
  }

  private backlog(): number {
    return this.queue.length + this.inFlight.size + this.retrying.size;
  }

  private begin(): void {
    const term = new AbortController();
    this.term = term;
    const ingest: IngestContext = {
      ...this.ctx,
      admitBlock: (block) => this.admitBlock(block),
      room: (signal) => this.room(signal),
      checkpointed: (height, head) => {
        this.checkpoint = height;
        this.head = head;
        emit(this.ctx.events, 'checkpoint', [this.ctx.route.id, height, Math.max(0, head - height)], () => undefined);
      },
      problem: (reason) => (this.problem = reason),
    };
    void runIngest(ingest, term.signal);
    void this.resume(term.signal);
    const scan = (): void => {
      this.parkTimer = setTimeout(() => void this.scanParked(term.signal).finally(() => !term.signal.aborted && scan()), this.ctx.limits.parked.scanEveryMs);
    };
    scan();
  }

  private end(): void {
    this.term?.abort(new Error('route stopped'));
    this.term = undefined;
    clearTimeout(this.parkTimer);
    for (const timer of this.retrying.values()) clearTimeout(timer);
    this.retrying.clear();
    this.queue.length = 0;
    this.queued.clear();
    this.wakeRoom();
  }

  /** Messages a previous run (or the previous lease holder) left in progress, and the parked count. */
  private async resume(signal: AbortSignal): Promise<void> {
    try {
      const parked = await this.ctx.store.list({ route: this.ctx.route.id, statuses: ['parked'], limit: PARKED_SCAN_LIMIT });
      for (const r of parked) this.parkedIds.add(r.message.warpMessageId);
      this.reportParked();
      await this.refill(signal);
    } catch (err) {
      this.ctx.logger.error({ route: this.ctx.route.id, err: reasonOf(err) }, 'relayer: could not read the store to resume');
    }
  }

  private async refill(signal: AbortSignal): Promise<void> {
    const limit = this.ctx.limits.maxBacklog;
    const records = await this.ctx.store.list({ route: this.ctx.route.id, statuses: IN_PROGRESS, limit: limit + this.inFlight.size });
    if (signal.aborted) return;
    this.storeHasMore = records.length >= limit + this.inFlight.size;
    for (const r of records) if (this.backlog() < limit) this.enqueue(r.message.warpMessageId);
  }

  /**
   * Parked messages whose time has come, and in-progress ones nobody here has queued (a manual
   * relay taken by a standby, a previous lease holder's leftovers), go into the queue.
   */
  private async scanParked(signal: AbortSignal): Promise<void> {
    try {
      const now = this.ctx.now();
      const waiting = await this.ctx.store.list({ route: this.ctx.route.id, statuses: IN_PROGRESS, limit: this.ctx.limits.maxBacklog });
      for (const r of waiting) {
        if (signal.aborted || this.backlog() >= this.ctx.limits.maxBacklog) break;
        this.enqueue(r.message.warpMessageId);
      }
      const parked = await this.ctx.store.list({ route: this.ctx.route.id, statuses: ['parked'], limit: PARKED_SCAN_LIMIT });
      if (signal.aborted) return;
      this.parkedIds.clear();
      for (const r of parked) this.parkedIds.add(r.message.warpMessageId);
      this.reportParked();
      for (const r of parked) {
        if (this.backlog() >= this.ctx.limits.maxBacklog) break;
        if ((r.nextAttemptAt ?? 0) <= now) this.enqueue(r.message.warpMessageId);
      }
    } catch (err) {
      this.ctx.logger.warn({ route: this.ctx.route.id, err: reasonOf(err) }, 'relayer: could not scan parked messages');
    }
  }

  private pump(): void {
    while (this.term && !this.stopping && this.inFlight.size < this.ctx.limits.maxInFlight && this.queue.length) {
      const id = this.queue.shift()!;
      this.queued.delete(id);
      const run = this.deliver(id).finally(() => {
        this.inFlight.delete(id);
        this.wakeRoom();
        this.pump();
        if (!this.queue.length && this.storeHasMore && this.term) void this.refill(this.term.signal).catch(() => undefined);
      });
      this.inFlight.set(id, run);
    }
  }

  private async deliver(id: Hex): Promise<void> {
    const { route, logger } = this.ctx;
    try {
      const record = await this.ctx.store.get(id);
      if (!record || record.route !== route.id || record.status === 'delivered' || record.status === 'skipped') return;
      const result = await attemptDelivery(this.ctx, record, this.deliveries.signal);
      const wasParked = this.parkedIds.delete(id);
      if (result.kind === 'parked') this.parkedIds.add(id);
      if (wasParked !== (result.kind === 'parked')) this.reportParked();
      if (result.kind === 'interrupted') {
        logger.info({ route: route.id, warpMessageId: id, reason: result.reason }, 'relayer: delivery interrupted; the message stays in the store');
      }
      // Interrupted while the route still runs: the lease's margin was short for a moment.
      const delayMs = result.kind === 'again' ? result.delayMs : result.kind === 'interrupted' ? this.ctx.limits.retry.initialMs : undefined;
      if (delayMs !== undefined && this.term && !this.stopping) {
        const timer = setTimeout(() => {
          this.retrying.delete(id);
          this.enqueue(id);
        }, delayMs);
        this.retrying.set(id, timer);
      }
    } catch (err) {
      logger.error({ route: route.id, warpMessageId: id, err: reasonOf(err) }, 'relayer: delivery failed unexpectedly; the message stays in the store');
    }
  }

  private reportParked(): void {
    emit(this.ctx.events, 'parked', [this.ctx.route.id, this.parkedIds.size], () => undefined);
  }

  private wakeRoom(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiters) w();
  }
}
