// The avalanchego peer network as warpgate sees it: outbound TLS connections to validators,
// keyed by NodeID, kept up with throttled reconnects, capped in number, and asked for ACP-118
// signatures. Shaped like the WebSocket PeerPool (src/peers/pool.ts) so the two can stand side
// by side: isConnected / request / penalize / stats / close, 'connected' and 'disconnected'
// events, and P2PRequestError with the same failure vocabulary.
import { EventEmitter } from 'node:events';
import { loadBackend, type BlsBackend, type PublicKey } from '../bls/index.js';
import { P2PRequestError, type CloseReason, type DropKind } from './errors.js';
import { MAX_MESSAGE_BYTES, PING_FREQUENCY_MS, PING_PONG_TIMEOUT_MS } from './constants.js';
import { P2PConnection } from './connection.js';
import type { ConnectionLimits, DiscoveredPeer, P2PAnswer, SignatureRequestInput } from './connection-types.js';
import { ephemeralStakingIdentity, type StakingIdentity } from './identity.js';
import { makeLocalSide, type LocalSideOptions } from './local-side.js';
import { DEFAULT_PENALTY_POLICY, DEFAULT_RECONNECT_POLICY, reconnectDelay, type PenaltyPolicy, type ReconnectPolicy } from './reconnect.js';
import { PenaltyBox } from '../util/penalty-box.js';
import { failedAsk, type AskDone, type AskTicket } from '../util/ask.js';
import { dialPeer, P2PDialError } from './tls.js';
import { initCompression } from './compression.js';
import { realTimers, type Timers } from './timers.js';

export interface P2PTarget {
  nodeId: string;
  host: string;
  port: number;
}

export interface P2PLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const silent: P2PLogger = { debug() {}, info() {}, warn() {} };

export type { Timers } from './timers.js';

/** A network's settings that are plain data: an I/O shard is sent them as they are. */
export interface P2PNetworkSettings extends Pick<LocalSideOptions, 'networkId' | 'version' | 'publicHost' | 'publicPort' | 'trackedSubnets'> {
  requestTimeoutMs?: number;
  /** TCP + TLS. */
  connectTimeoutMs?: number;
  limits?: Partial<ConnectionLimits>;
  /** Connections kept (and dialled) at most. */
  maxPeers?: number;
  dialConcurrency?: number;
  reconnect?: ReconnectPolicy;
  penalties?: PenaltyPolicy;
}

export interface P2PNetworkOptions extends Omit<LocalSideOptions, 'identity' | 'bls' | 'onUnparseable'>, P2PNetworkSettings {
  /** Ephemeral when absent; replicas must not share one (a node keeps one connection per NodeID). */
  identity?: StakingIdentity;
  bls?: BlsBackend;
  /** The registered BLS key of a validator, to check its ip_bls_sig as avalanchego does. */
  validatorBlsKey?(nodeId: string): PublicKey | undefined;
  /**
   * Dial a wanted validator as soon as a PeerList names it (default). An I/O shard turns this off:
   * the main thread decides which shard owns a validator, so it only reports what it learnt.
   */
  adoptDiscovered?: boolean;
  /**
   * Whether this network keeps the strikes of a NodeID (default: every one). An I/O shard keeps
   * only its own validators'; a strike against another (an impostor met while dialling) is
   * emitted as 'strikeElsewhere' for the main thread to hand to the shard that owns it.
   */
  keepsStrikesOf?(nodeId: string): boolean;
  logger?: P2PLogger;
  timers?: Timers;
  random?: () => number;
}

export const DEFAULT_P2P_LIMITS: ConnectionLimits = {
  maxMessageBytes: MAX_MESSAGE_BYTES,
  handshakeTimeoutMs: 15_000,
  pingIntervalMs: PING_FREQUENCY_MS,
  silenceTimeoutMs: PING_PONG_TIMEOUT_MS,
  maxOutstandingRequests: 1024,
  maxMessagesPerSecond: 2_000,
  maxWriteBufferBytes: 8 * MAX_MESSAGE_BYTES,
  maxClaimedIpsPerPeerList: 64,
};

export interface P2PNetworkEvents {
  connected: [nodeId: string];
  disconnected: [nodeId: string, reason: CloseReason];
  /** A dial attempt ended without a connection. */
  dialFailed: [nodeId: string, error: P2PDialError];
  /** A validator address learnt from PeerList gossip (signature checked). */
  discovered: [peer: DiscoveredPeer];
  /** A strike put a NodeID in a cooldown of `cooldownMs`. */
  banned: [nodeId: string, cooldownMs: number];
  /** A strike against a NodeID whose strikes this network does not keep (keepsStrikesOf). */
  strikeElsewhere: [nodeId: string, reason: string];
  /** Something an honest but slow node does, dropped and counted without a penalty (DropKind). */
  dropped: [nodeId: string, kind: DropKind];
}

interface TargetState {
  target: P2PTarget;
  conn: P2PConnection | undefined;
  dialing: boolean;
  failures: number;
  lastAttemptAt: number;
  timer: unknown;
}

function positive(value: number | undefined, name: string, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`P2PNetwork option ${name} must be positive, got ${v}`);
  return v;
}

export class P2PNetwork extends EventEmitter<P2PNetworkEvents> {
  readonly identity: StakingIdentity;
  private readonly targets = new Map<string, TargetState>();
  /** NodeIDs whose address we would take from gossip. */
  private readonly wanted = new Set<string>();
  private readonly limits: ConnectionLimits;
  private readonly options: P2PNetworkOptions;
  private readonly bls: BlsBackend;
  private readonly requestTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly maxPeers: number;
  private readonly dialConcurrency: number;
  private readonly reconnect: ReconnectPolicy;
  private readonly penalties: PenaltyBox;
  private readonly timers: Timers;
  private readonly logger: P2PLogger;
  private local: ReturnType<typeof makeLocalSide> | undefined;
  private started = false;
  private closed = false;
  private dialing = 0;
  private pulls = 0;

  constructor(options: P2PNetworkOptions) {
    super();
    this.options = options;
    this.identity = options.identity ?? ephemeralStakingIdentity();
    this.bls = options.bls ?? loadBackend();
    this.limits = { ...DEFAULT_P2P_LIMITS, ...options.limits };
    for (const [k, v] of Object.entries(this.limits)) positive(v, `limits.${k}`, 1);
    this.requestTimeoutMs = positive(options.requestTimeoutMs, 'requestTimeoutMs', 5_000);
    this.connectTimeoutMs = positive(options.connectTimeoutMs, 'connectTimeoutMs', 10_000);
    this.maxPeers = positive(options.maxPeers, 'maxPeers', 1_000);
    this.dialConcurrency = positive(options.dialConcurrency, 'dialConcurrency', 32);
    this.reconnect = options.reconnect ?? DEFAULT_RECONNECT_POLICY;
    if (!(this.reconnect.minIntervalMs > 0 && this.reconnect.maxMs >= this.reconnect.minIntervalMs)) {
      throw new RangeError('reconnect needs 0 < minIntervalMs <= maxMs');
    }
    this.timers = options.timers ?? realTimers;
    this.penalties = new PenaltyBox(options.penalties ?? DEFAULT_PENALTY_POLICY, () => this.timers.now());
    this.logger = options.logger ?? silent;
  }

  get nodeId(): string {
    return this.identity.nodeId;
  }

  /** Loads zstd, signs our IP and starts dialling the targets. */
  async start(): Promise<void> {
    if (this.closed) throw new Error('P2PNetwork is closed');
    if (this.started) return;
    await initCompression();
    this.local = makeLocalSide({ ...this.options, identity: this.identity, bls: this.bls, onUnparseable: 'disconnect' });
    this.started = true;
    this.pump();
  }

  /** Replaces the validators to keep connected; those left out are disconnected. */
  setTargets(targets: readonly P2PTarget[]): void {
    const next = new Map(targets.map((t) => [t.nodeId, t]));
    for (const [id, state] of this.targets) {
      if (next.has(id)) continue;
      this.targets.delete(id);
      if (state.timer !== undefined) this.timers.clearTimeout(state.timer);
      state.conn?.close({ kind: 'local', detail: 'no longer a target' });
    }
    this.addTargets(targets);
  }

  /** Adds (or re-addresses) validators to keep connected. */
  addTargets(targets: readonly P2PTarget[]): void {
    for (const t of targets) {
      const existing = this.targets.get(t.nodeId);
      if (existing) existing.target = { ...t };
      else this.targets.set(t.nodeId, { target: { ...t }, conn: undefined, dialing: false, failures: 0, lastAttemptAt: -Infinity, timer: undefined });
    }
    this.pump();
  }

  /** NodeIDs whose addresses PeerList gossip may supply (they become targets when learnt). */
  want(nodeIds: Iterable<string>): void {
    for (const id of nodeIds) this.wanted.add(id);
  }

  /** Replaces the wanted NodeIDs (so validators that left are not wanted forever). */
  setWanted(nodeIds: Iterable<string>): void {
    this.wanted.clear();
    this.want(nodeIds);
  }

  isConnected(nodeId: string): boolean {
    return this.targets.get(nodeId)?.conn?.isReady === true;
  }

  /**
   * Asks one connected peer (in turn) for the validator addresses it knows (GetPeerList with an
   * empty known-peers filter): the wanted ones it names come back as 'discovered'. False when no
   * peer is connected.
   */
  pullPeerList(): boolean {
    const ready = [...this.targets.values()].filter((s) => s.conn?.isReady);
    if (ready.length === 0) return false;
    ready[this.pulls++ % ready.length]!.conn!.requestPeerList();
    return true;
  }

  connectedNodeIds(): string[] {
    return [...this.targets.values()].filter((s) => s.conn?.isReady).map((s) => s.target.nodeId);
  }

  /** The address a connected peer signed in its Handshake. */
  peerAddress(nodeId: string): { host: string; port: number } | undefined {
    const p = this.targets.get(nodeId)?.conn?.peer;
    return p ? { host: p.ip, port: p.port } : undefined;
  }

  request(nodeId: string, req: SignatureRequestInput, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<P2PAnswer> {
    if (this.closed) return Promise.reject(new P2PRequestError('closed', nodeId, 'the p2p network is closed'));
    const conn = this.targets.get(nodeId)?.conn;
    if (!conn?.isReady) return Promise.reject(new P2PRequestError('not-connected', nodeId, 'no connection to this node'));
    return conn.request(req, opts.timeoutMs ?? this.requestTimeoutMs, opts.signal);
  }

  /** request() in the callback form the aggregator uses (P2PConnection.ask). */
  ask(nodeId: string, req: SignatureRequestInput, timeoutMs: number, done: AskDone<P2PAnswer>): AskTicket {
    if (this.closed) return failedAsk(new P2PRequestError('closed', nodeId, 'the p2p network is closed'), done);
    const conn = this.targets.get(nodeId)?.conn;
    if (!conn?.isReady) return failedAsk(new P2PRequestError('not-connected', nodeId, 'no connection to this node'), done);
    return conn.ask(req, timeoutMs, done);
  }

  /** A strike against a node (e.g. an invalid signature); at the threshold it is dropped for a cooldown. */
  penalize(nodeId: string, reason: string): void {
    if (this.options.keepsStrikesOf?.(nodeId) === false) {
      this.emit('strikeElsewhere', nodeId, reason);
      return;
    }
    const banned = this.penalties.strike(nodeId);
    this.logger.warn({ nodeId, reason, banned }, banned ? 'p2p peer penalized, disconnecting it for a cooldown' : 'p2p peer penalized');
    if (!banned) return;
    this.emit('banned', nodeId, this.penalties.cooldownRemaining(nodeId));
    this.targets.get(nodeId)?.conn?.close({ kind: 'local', detail: `penalized: ${reason}` });
  }

  /** Restores a cooldown (an I/O shard started again is told its validators' bans); not dialled until it ends. */
  ban(nodeId: string, forMs: number): void {
    this.penalties.ban(nodeId, forMs);
    this.targets.get(nodeId)?.conn?.close({ kind: 'local', detail: 'banned' });
  }

  /**
   * The validator is up again (it reconnected to the network: info.peers of the upstream node
   * lists it): its failed dials are forgotten, so it is dialled as soon as the throttle allows
   * rather than when its backoff, grown while it was down, ends.
   */
  retrySoon(nodeId: string): void {
    const state = this.targets.get(nodeId);
    if (!state || state.conn || state.dialing || state.failures === 0) return;
    state.failures = 0;
    if (state.timer !== undefined) this.timers.clearTimeout(state.timer);
    state.timer = undefined;
    this.pump();
  }

  stats(): { targets: number; connected: number; dialing: number; outstanding: number } {
    let connected = 0;
    let outstanding = 0;
    for (const s of this.targets.values()) {
      if (s.conn?.isReady) connected++;
      outstanding += s.conn?.outstandingCount ?? 0;
    }
    return { targets: this.targets.size, connected, dialing: this.dialing, outstanding };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.targets.values()) {
      if (s.timer !== undefined) this.timers.clearTimeout(s.timer);
      s.timer = undefined;
      s.conn?.close({ kind: 'local', detail: 'shutting down' }, 'closed');
    }
  }

  private connectionCount(): number {
    let n = this.dialing;
    for (const s of this.targets.values()) if (s.conn && !s.conn.isClosed) n++;
    return n;
  }

  /** Starts the dials that are due and allowed (caps, throttle, cooldowns). One pass over the targets. */
  private pump(): void {
    if (!this.started || this.closed) return;
    let connections = this.connectionCount();
    for (const state of this.targets.values()) {
      if (this.dialing >= this.dialConcurrency || connections >= this.maxPeers) return;
      if (state.conn || state.dialing || state.timer !== undefined) continue;
      const wait = this.waitBeforeDial(state);
      if (wait > 0) {
        state.timer = this.timers.setTimeout(() => {
          state.timer = undefined;
          this.pump();
        }, wait);
        continue;
      }
      connections++;
      void this.dial(state);
    }
  }

  private waitBeforeDial(state: TargetState): number {
    const now = this.timers.now();
    const ban = this.penalties.cooldownRemaining(state.target.nodeId);
    const throttle = state.lastAttemptAt + this.reconnect.minIntervalMs - now;
    const backoff = state.failures === 0 ? 0 : state.lastAttemptAt + reconnectDelay(state.failures - 1, this.reconnect, this.options.random) - now;
    return Math.max(0, ban, throttle, backoff);
  }

  private async dial(state: TargetState): Promise<void> {
    const { nodeId, host, port } = state.target;
    state.dialing = true;
    state.lastAttemptAt = this.timers.now();
    this.dialing++;
    try {
      const { socket, certificate } = await dialPeer({ host, port, expectedNodeId: nodeId }, this.identity, this.connectTimeoutMs);
      if (this.closed || this.targets.get(nodeId) !== state) {
        socket.destroy();
        return;
      }
      let becameReady = false;
      const conn = new P2PConnection(socket, certificate, this.local!, this.limits, {
        validatorBlsKey: this.options.validatorBlsKey,
        wantsPeer: (id) => this.wanted.has(id) && !this.targets.get(id)?.conn,
        onReady: () => {
          becameReady = true;
          state.failures = 0;
          this.logger.info({ nodeId, host, port }, 'p2p peer connected');
          this.emit('connected', nodeId);
        },
        onClosed: (c, reason) => this.onConnectionClosed(state, c, reason, becameReady),
        onDiscovered: (_c, peers) => this.onDiscovered(peers),
        onDropped: (c, kind, detail) => this.dropped(c.nodeId, kind, detail),
      });
      state.conn = conn;
      conn.start();
    } catch (err) {
      const e = err instanceof P2PDialError ? err : new P2PDialError('tls', (err as Error).message);
      state.failures++;
      // Another node at the address: most likely the address is stale (a validator moved, another
      // took its IP), and whoever holds it now did nothing wrong by answering. Counted, no strike.
      if (e.kind === 'wrong-node-id') this.dropped(e.actualNodeId ?? nodeId, 'stale-address', e.message);
      this.logger.debug({ nodeId, host, port, kind: e.kind, err: e.message }, 'p2p dial failed');
      this.emit('dialFailed', nodeId, e);
    } finally {
      state.dialing = false;
      this.dialing--;
      this.pump();
    }
  }

  private dropped(nodeId: string, kind: DropKind, detail: string): void {
    this.logger.debug({ nodeId, kind, detail }, 'p2p: dropped what a slow or moved node did, no penalty');
    this.emit('dropped', nodeId, kind);
  }

  private onConnectionClosed(state: TargetState, conn: P2PConnection, reason: CloseReason, wasReady: boolean): void {
    if (state.conn === conn) state.conn = undefined;
    if (reason.kind === 'fault') {
      this.penalize(conn.nodeId, `${reason.fault}: ${reason.detail}`);
      state.failures++;
    } else if (reason.kind !== 'local') {
      state.failures++;
    }
    const after = reason.kind === 'remote' ? reason.afterOurHandshake : undefined;
    if (after) this.logger.warn({ nodeId: conn.nodeId, ...after, detail: reason.detail }, 'closed right after our Handshake: check version and clock');
    else this.logger.info({ nodeId: conn.nodeId, reason }, wasReady ? 'p2p peer disconnected' : 'p2p handshake failed');
    if (wasReady) this.emit('disconnected', conn.nodeId, reason);
    else this.emit('dialFailed', conn.nodeId, new P2PDialError('handshake', `${reason.kind}: ${reason.detail}`));
    this.pump();
  }

  private onDiscovered(peers: DiscoveredPeer[]): void {
    for (const p of peers) {
      this.emit('discovered', p);
      if (this.options.adoptDiscovered !== false && this.wanted.has(p.nodeId)) this.addTargets([{ nodeId: p.nodeId, host: p.host, port: p.port }]);
    }
  }
}
