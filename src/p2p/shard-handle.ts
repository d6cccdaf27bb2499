// The main thread's side of one p2p I/O shard (shard-worker.ts), across its restarts: the worker
// thread, the asks waiting on it, its targets, and the batching of what crosses to it (the asks
// and cancels of one turn of the main loop go as one message each). A shard that dies fails its
// outstanding asks at once ('disconnected'), has its validators reported disconnected (the
// network knows which shard holds each) and is started again after a backoff, with its targets.
import { Worker } from 'node:worker_threads';
import { failedAsk, type AskDone, type AskTicket } from '../util/ask.js';
import { tsWorker } from '../util/ts-runtime.js';
import type { P2PAnswer, SignatureRequestInput } from './connection-types.js';
import { P2PRequestError, type CloseReason, type DropKind } from './errors.js';
import type { P2PLogger } from './network.js';
import { SIGNATURE_BYTES, type FromShard, type ShardInit, type ShardTarget, type ToShard } from './shard-messages.js';
import type { DialFailure } from './tls.js';

/** What a shard reports to the network it belongs to. */
export interface ShardOwner {
  readonly logger: P2PLogger;
  readonly isClosed: boolean;
  readonly restartMinMs: number;
  readonly restartMaxMs: number;
  /** The NodeIDs PeerList gossip may supply, sent to a shard again when it restarts. */
  readonly wantedNow: string[];
  onConnected(shard: ShardHandle, nodeId: string): void;
  onDisconnected(shard: ShardHandle, nodeId: string, reason: CloseReason): void;
  /** The shard's thread is gone: every validator it held is disconnected. */
  onShardGone(shard: ShardHandle, reason: CloseReason): void;
  onDialFailed(nodeId: string, kind: DialFailure, message: string): void;
  onDiscovered(m: FromShard & { type: 'discovered' }): void;
  onDropped(nodeId: string, kind: DropKind): void;
  /** A strike a shard met against a NodeID it does not own. */
  penalize(nodeId: string, reason: string): void;
  onBanned(nodeId: string, cooldownMs: number): void;
  /** The cooldowns still running for a shard's validators (sent to it when it starts again). */
  bansOf(shard: number): { nodeId: string; forMs: number }[];
}

/** A shard that ran this long before it died counts as healthy: its restart waits the minimum again. */
const HEALTHY_RUN_MS = 30_000;
/** How long close() waits for a shard to close its connections before it is terminated. */
const CLOSE_GRACE_MS = 5_000;

/** An ask the main thread waits on; its own ticket. */
class ShardAsk implements AskTicket {
  /** Posted to the shard (before that, a cancel only drops it from the batch). */
  sent = false;

  constructor(
    private readonly shard: ShardHandle,
    readonly id: number,
    readonly nodeId: string,
    readonly done: AskDone<P2PAnswer>,
  ) {}

  cancel(): void {
    this.shard.cancel(this);
  }
}

/** The asks of one turn of the main loop for one shard, each request body once. */
interface AskBatch {
  requests: SignatureRequestInput[];
  indexOf: Map<SignatureRequestInput, number>;
  ids: number[];
  nodeIds: string[];
  requestOf: number[];
  timeoutsMs: number[];
}

function emptyBatch(): AskBatch {
  return { requests: [], indexOf: new Map(), ids: [], nodeIds: [], requestOf: [], timeoutsMs: [] };
}

/** A request body the shard can be sent on its own: views of a larger buffer would copy all of it. */
function ownBytes(req: SignatureRequestInput): SignatureRequestInput {
  return { chainId: req.chainId.slice(), message: req.message.slice(), justification: req.justification.slice() };
}

/** One worker thread, across its restarts. */
export class ShardHandle {
  worker: Worker | undefined;
  readonly pending = new Map<number, ShardAsk>();
  targets: ShardTarget[] = [];
  dialing = 0;
  private batch = emptyBatch();
  private cancels: number[] = [];
  private flushScheduled = false;
  private failures = 0;
  private startedAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private closing: (() => void) | undefined;
  /** Settles once the first start of this shard succeeded or failed. */
  firstStart: Promise<void>;
  private settleFirstStart: ((err?: Error) => void) | undefined;

  constructor(
    private readonly net: ShardOwner,
    readonly index: number,
    private readonly init: ShardInit,
  ) {
    this.firstStart = new Promise<void>((resolve, reject) => {
      this.settleFirstStart = (err) => (err ? reject(err) : resolve());
    });
  }

  spawn(): void {
    const { filename, workerData } = tsWorker(new URL('./shard-worker.ts', import.meta.url), this.init);
    const worker = new Worker(new URL(filename), { workerData });
    this.worker = worker;
    this.startedAt = Date.now();
    worker.on('message', (m: FromShard) => {
      // A dead thread's last words (a 'connected' after its exit was handled) must not mark its
      // validators connected again.
      if (this.worker === worker) this.onMessage(m);
    });
    worker.on('error', (err) => this.net.logger.warn({ shard: this.index, err: err.message }, 'p2p shard failed'));
    worker.on('exit', (code) => this.onExit(worker, code));
    // Messages wait in the worker's port until it listens: the targets go at once.
    if (this.targets.length > 0) this.post({ type: 'targets', targets: this.targets });
    if (this.net.wantedNow.length > 0) this.post({ type: 'wanted', nodeIds: this.net.wantedNow });
    const bans = this.net.bansOf(this.index);
    if (bans.length > 0) this.post({ type: 'bans', bans });
  }

  post(m: ToShard): void {
    this.worker?.postMessage(m);
  }

  enqueue(id: number, nodeId: string, req: SignatureRequestInput, timeoutMs: number, done: AskDone<P2PAnswer>): AskTicket {
    // Between an exit and the restart nothing would carry the ask: it was never sent.
    if (!this.worker) return failedAsk(new P2PRequestError('not-connected', nodeId, 'its p2p shard is restarting'), done);
    const ask = new ShardAsk(this, id, nodeId, done);
    this.pending.set(id, ask);
    const b = this.batch;
    let r = b.indexOf.get(req);
    if (r === undefined) {
      r = b.requests.push(ownBytes(req)) - 1;
      b.indexOf.set(req, r);
    }
    b.ids.push(id);
    b.nodeIds.push(nodeId);
    b.requestOf.push(r);
    b.timeoutsMs.push(timeoutMs);
    this.flushSoon();
    return ask;
  }

  cancel(ask: ShardAsk): void {
    if (!this.pending.delete(ask.id)) return;
    // Not sent yet: the flush leaves it out, and the validator is never asked.
    if (!ask.sent) return;
    this.cancels.push(ask.id);
    this.flushSoon();
  }

  close(): Promise<void> {
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const grace = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
      this.closing = () => {
        clearTimeout(grace);
        resolve();
      };
      this.flush();
      this.post({ type: 'close' });
    });
  }

  private flushSoon(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // A fan-out sends its first wave in one synchronous loop: a microtask later it is one message.
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.cancels.length > 0) {
      this.post({ type: 'cancel', ids: this.cancels });
      this.cancels = [];
    }
    const b = this.batch;
    if (b.ids.length === 0) return;
    this.batch = emptyBatch();
    // Leave out what was cancelled before it went (the bodies stay: cheaper than re-indexing).
    const ids: number[] = [];
    const nodeIds: string[] = [];
    const requestOf: number[] = [];
    const timeoutsMs: number[] = [];
    for (let i = 0; i < b.ids.length; i++) {
      const ask = this.pending.get(b.ids[i]!);
      if (!ask) continue;
      ask.sent = true;
      ids.push(b.ids[i]!);
      nodeIds.push(b.nodeIds[i]!);
      requestOf.push(b.requestOf[i]!);
      timeoutsMs.push(b.timeoutsMs[i]!);
    }
    if (ids.length > 0) this.post({ type: 'asks', requests: b.requests, ids, nodeIds, requestOf, timeoutsMs });
  }

  private onMessage(m: FromShard): void {
    switch (m.type) {
      case 'answers':
        return this.onAnswers(m);
      case 'connected':
        this.net.onConnected(this, m.nodeId);
        return;
      case 'disconnected':
        this.net.onDisconnected(this, m.nodeId, m.reason);
        return;
      case 'dialFailed':
        this.net.onDialFailed(m.nodeId, m.kind, m.message);
        return;
      case 'discovered':
        this.net.onDiscovered(m);
        return;
      case 'stats':
        this.dialing = m.dialing;
        return;
      case 'penalize':
        this.net.penalize(m.nodeId, m.reason);
        return;
      case 'banned':
        this.net.onBanned(m.nodeId, m.cooldownMs);
        return;
      case 'dropped':
        this.net.onDropped(m.nodeId, m.kind);
        return;
      case 'log':
        this.net.logger[m.level]({ ...m.obj, shard: this.index }, m.msg);
        return;
      case 'started':
        this.settleFirstStart?.();
        this.settleFirstStart = undefined;
        return;
      case 'closed':
        // Its connections are closed and their asks answered: the thread can go.
        void this.worker?.terminate();
        return;
    }
  }

  private onAnswers(m: FromShard & { type: 'answers' }): void {
    const { signatureIds, signatures, others } = m;
    for (let i = 0; i < signatureIds.length; i++) {
      const ask = this.pending.get(signatureIds[i]!);
      if (!ask) continue;
      this.pending.delete(ask.id);
      // A copy, not a view: a cached signature must not keep the whole batch's buffer alive.
      ask.done(undefined, { kind: 'signature', signature: signatures.slice(i * SIGNATURE_BYTES, (i + 1) * SIGNATURE_BYTES) });
    }
    for (const o of others) {
      const ask = this.pending.get(o.id);
      if (!ask) continue;
      this.pending.delete(ask.id);
      if (o.kind === 'refused') ask.done(undefined, { kind: 'refused', code: o.code, reason: o.reason });
      else ask.done(new P2PRequestError(o.reason, ask.nodeId, o.detail), undefined);
    }
  }

  private onExit(worker: Worker, code: number): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.batch = emptyBatch();
    this.cancels = [];
    const closing = this.closing;
    // Not connected first: a callback below that asks again must find the validator gone, not a
    // shard with no thread.
    this.net.onShardGone(this, { kind: 'local', detail: closing ? 'shutting down' : 'its p2p shard stopped' });
    this.dialing = 0;
    const reason = closing ? 'closed' : 'disconnected';
    const asks = [...this.pending.values()];
    for (const a of asks) {
      // One callback may cancel another ask of the list: that one then hears nothing.
      if (!this.pending.delete(a.id)) continue;
      a.done(new P2PRequestError(reason, a.nodeId, closing ? 'the p2p network is closed' : 'the p2p shard serving it stopped'), undefined);
    }
    if (closing) {
      this.closing = undefined;
      this.settleFirstStart?.(new Error(`p2p shard ${this.index} was closed before it started`));
      this.settleFirstStart = undefined;
      closing();
      return;
    }
    if (this.settleFirstStart) {
      this.settleFirstStart(new Error(`p2p shard ${this.index} exited (code ${code}) before it started`));
      this.settleFirstStart = undefined;
      return;
    }
    if (this.net.isClosed) return;
    if (Date.now() - this.startedAt >= HEALTHY_RUN_MS) this.failures = 0;
    const wait = Math.min(this.net.restartMaxMs, this.net.restartMinMs * 2 ** this.failures);
    this.failures++;
    this.net.logger.warn({ shard: this.index, code, restartInMs: wait, failedAsks: asks.length }, 'p2p shard stopped; its validators are disconnected until it restarts');
    this.restartTimer = setTimeout(() => {
      if (!this.net.isClosed) this.spawn();
    }, wait);
    this.restartTimer.unref();
  }
}
