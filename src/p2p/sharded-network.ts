// The avalanchego peer network spread over I/O shards: N worker threads (shard-worker.ts), each
// running a P2PNetwork over the validators whose NodeID hashes to it. On one event loop the
// transport's own work (a TLS write per request, TLS reads, frames, zstd, protobuf, pings) kept
// the main thread busy for the whole collection on a 16-core machine while its other cores sat
// idle (commit cd6348f); here that work runs on the shards' threads.
//
// This class has P2PNetwork's API, so the service uses either (p2p.ioShards). What it keeps on the
// main thread: which validators are connected (isConnected is synchronous, read per request), the
// callbacks of outstanding asks, and the partition. What crosses threads is batched: the asks made
// in one turn of the main loop go to each shard as one message, the answers a shard reads in one
// turn come back as one (shard-handle.ts: one shard's side, its batching and its restarts).
import { EventEmitter } from 'node:events';
import type { BlsBackend, PublicKey, SecretKey } from '../bls/types.js';
import { askAsPromise, failedAsk, type AskDone, type AskTicket } from '../util/ask.js';
import type { P2PAnswer, SignatureRequestInput } from './connection-types.js';
import { abortedBy, P2PRequestError, type CloseReason, type DropKind } from './errors.js';
import type { StakingIdentity } from './identity.js';
import type { P2PLogger, P2PNetworkEvents, P2PNetworkSettings, P2PTarget } from './network.js';
import { ShardHandle, type ShardOwner } from './shard-handle.js';
import { shardOf, type FromShard, type ShardInit, type ShardTarget } from './shard-messages.js';

export { shardOf };
import { parseStakingCertificate } from './staking-certificate.js';
import { P2PDialError, type DialFailure } from './tls.js';

/** The settings go to every shard as they are, but dialConcurrency is split between them (each its share, rounded up). */
export interface ShardedP2PNetworkOptions extends P2PNetworkSettings {
  /** Worker threads, at least 1. */
  shards: number;
  identity: StakingIdentity;
  bls: BlsBackend;
  /** Absent: one throwaway key, shared by every shard. */
  blsSecretKey?: SecretKey;
  validatorBlsKey?(nodeId: string): PublicKey | undefined;
  logger?: P2PLogger & { isLevelEnabled?(level: string): boolean };
  /** A dead shard is started again after this, doubling per failure up to restartMaxMs. */
  restartMinMs?: number;
  restartMaxMs?: number;
}

const silent: P2PLogger = { debug() {}, info() {}, warn() {} };
const DEFAULT_DIAL_CONCURRENCY = 32;

export class ShardedP2PNetwork extends EventEmitter<P2PNetworkEvents> implements ShardOwner {
  readonly identity: StakingIdentity;
  readonly logger: P2PLogger;
  readonly restartMinMs: number;
  readonly restartMaxMs: number;
  wantedNow: string[] = [];
  private readonly shards: ShardHandle[] = [];
  /** Connected NodeID → the shard holding its connection (read per request). */
  private readonly connectedAt = new Map<string, ShardHandle>();
  private readonly options: ShardedP2PNetworkOptions;
  /** NodeID → when its cooldown ends: a shard that dies does not forget its bans. */
  private readonly bans = new Map<string, number>();
  private readonly maxBans: number;
  private nextId = 1;
  private pulls = 0;
  private started = false;
  private closed = false;

  constructor(options: ShardedP2PNetworkOptions) {
    super();
    if (!Number.isInteger(options.shards) || options.shards < 1) throw new RangeError(`ShardedP2PNetwork needs at least 1 shard, got ${options.shards}`);
    this.options = options;
    this.identity = options.identity;
    this.logger = options.logger ?? silent;
    this.restartMinMs = options.restartMinMs ?? 1_000;
    this.restartMaxMs = options.restartMaxMs ?? 30_000;
    this.maxBans = options.penalties?.maxTrackedKeys ?? 100_000;
    const { shards, identity, bls, blsSecretKey, validatorBlsKey, logger, restartMinMs, restartMaxMs, ...settings } = options;
    const shared = {
      ...settings,
      shards,
      certPem: identity.certPem,
      keyPem: identity.keyPem,
      blsSecretKey: (blsSecretKey ?? bls.generateSecretKey()).bytes,
      blsBackend: bls.name,
      dialConcurrency: Math.ceil((settings.dialConcurrency ?? DEFAULT_DIAL_CONCURRENCY) / shards),
      logDebug: logger?.isLevelEnabled?.('debug') ?? false,
    };
    for (let i = 0; i < shards; i++) {
      const init: ShardInit = { ...shared, shard: i };
      this.shards.push(new ShardHandle(this, i, init));
    }
  }

  get nodeId(): string {
    return this.identity.nodeId;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Starts every shard; rejects (and stops them all) when one cannot start. */
  async start(): Promise<void> {
    if (this.closed) throw new Error('ShardedP2PNetwork is closed');
    if (this.started) return;
    this.started = true;
    for (const s of this.shards) s.spawn();
    try {
      await Promise.all(this.shards.map((s) => s.firstStart));
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** Replaces the validators to keep connected: each goes to its shard, with its registered BLS key. */
  setTargets(targets: readonly P2PTarget[]): void {
    const slices: ShardTarget[][] = this.shards.map(() => []);
    for (const t of targets) {
      const blsKey = this.options.validatorBlsKey?.(t.nodeId)?.bytes;
      slices[shardOf(t.nodeId, this.shards.length)]!.push({ nodeId: t.nodeId, host: t.host, port: t.port, ...(blsKey ? { blsKey } : {}) });
    }
    this.shards.forEach((s, i) => {
      s.targets = slices[i]!;
      s.post({ type: 'targets', targets: s.targets });
    });
  }

  /** NodeIDs whose addresses PeerList gossip may supply; every shard listens for all of them. */
  setWanted(nodeIds: Iterable<string>): void {
    this.wantedNow = [...nodeIds];
    for (const s of this.shards) s.post({ type: 'wanted', nodeIds: this.wantedNow });
  }

  isConnected(nodeId: string): boolean {
    return this.connectedAt.has(nodeId);
  }

  connectedNodeIds(): string[] {
    return [...this.connectedAt.keys()];
  }

  /** Asks one shard with a connected peer (in turn) to pull a PeerList; false when none is connected. */
  pullPeerList(): boolean {
    const holding = new Set(this.connectedAt.values());
    const ready = this.shards.filter((s) => holding.has(s));
    if (ready.length === 0) return false;
    ready[this.pulls++ % ready.length]!.post({ type: 'pullPeerList' });
    return true;
  }

  ask(nodeId: string, req: SignatureRequestInput, timeoutMs: number, done: AskDone<P2PAnswer>): AskTicket {
    if (this.closed) return failedAsk(new P2PRequestError('closed', nodeId, 'the p2p network is closed'), done);
    const shard = this.connectedAt.get(nodeId);
    if (!shard) return failedAsk(new P2PRequestError('not-connected', nodeId, 'no connection to this node'), done);
    return shard.enqueue(this.nextId++, nodeId, req, timeoutMs, done);
  }

  request(nodeId: string, req: SignatureRequestInput, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<P2PAnswer> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(abortedBy(signal, nodeId));
    const timeoutMs = opts.timeoutMs ?? this.options.requestTimeoutMs ?? 5_000;
    // The shard's connection sweeps a late ask only when its own timer next runs (asks carry none):
    // the promise form keeps its deadline here, as P2PNetwork.request does.
    return askAsPromise<P2PAnswer>((done) => this.ask(nodeId, req, timeoutMs, done), {
      signal,
      aborted: () => abortedBy(signal!, nodeId),
      timeout: { ms: timeoutMs, error: () => new P2PRequestError('timeout', nodeId, 'no answer before the deadline') },
    });
  }

  /** A strike against a node, counted by the shard that holds its connection. */
  penalize(nodeId: string, reason: string): void {
    this.shards[shardOf(nodeId, this.shards.length)]!.post({ type: 'penalize', nodeId, reason });
  }

  /** P2PNetwork.retrySoon, in the shard that holds the validator. */
  retrySoon(nodeId: string): void {
    this.shards[shardOf(nodeId, this.shards.length)]!.post({ type: 'retrySoon', nodeId });
  }

  stats(): { targets: number; connected: number; dialing: number; outstanding: number } {
    let targets = 0;
    let dialing = 0;
    let outstanding = 0;
    for (const s of this.shards) {
      targets += s.targets.length;
      dialing += s.dialing;
      outstanding += s.pending.size;
    }
    return { targets, connected: this.connectedAt.size, dialing, outstanding };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.shards.map((s) => s.close()));
  }

  onConnected(shard: ShardHandle, nodeId: string): void {
    this.connectedAt.set(nodeId, shard);
    this.emit('connected', nodeId);
  }

  onDisconnected(shard: ShardHandle, nodeId: string, reason: CloseReason): void {
    if (this.connectedAt.get(nodeId) === shard) this.connectedAt.delete(nodeId);
    this.emit('disconnected', nodeId, reason);
  }

  onShardGone(shard: ShardHandle, reason: CloseReason): void {
    for (const [nodeId, holder] of [...this.connectedAt]) if (holder === shard) this.onDisconnected(shard, nodeId, reason);
  }

  onBanned(nodeId: string, cooldownMs: number): void {
    this.bans.delete(nodeId);
    this.bans.set(nodeId, Date.now() + cooldownMs);
    // Bounded as the shards' own penalty boxes are: the oldest ban is forgotten first.
    if (this.bans.size > this.maxBans) this.bans.delete(this.bans.keys().next().value!);
  }

  bansOf(shard: number): { nodeId: string; forMs: number }[] {
    const now = Date.now();
    const out: { nodeId: string; forMs: number }[] = [];
    for (const [nodeId, until] of this.bans) {
      if (until <= now) this.bans.delete(nodeId);
      else if (shardOf(nodeId, this.shards.length) === shard) out.push({ nodeId, forMs: until - now });
    }
    return out;
  }

  onDialFailed(nodeId: string, kind: DialFailure, message: string): void {
    this.emit('dialFailed', nodeId, new P2PDialError(kind, message));
  }

  onDropped(nodeId: string, kind: DropKind): void {
    this.emit('dropped', nodeId, kind);
  }

  onDiscovered(m: FromShard & { type: 'discovered' }): void {
    let certificate;
    try {
      certificate = parseStakingCertificate(m.certificateDer);
    } catch {
      return; // The shard parsed it already; a copy that does not parse cannot happen.
    }
    this.emit('discovered', { nodeId: m.nodeId, host: m.host, port: m.port, timestamp: m.timestamp, certificate });
  }
}
