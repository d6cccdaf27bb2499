// The service's view of its signer peers: dials configured signers, accepts signers that dial in,
// authenticates each by proof of key possession, and indexes the connections by BLS public key
// (hex of the 48-byte compressed key) so the aggregator can ask "validator with key K, sign M".
// Protocol: docs/peer-protocol.md.
//
// Anyone can dial the peer path, so connections that dial in pass three gates the configured
// ones do not: per address and in all, how many may be in the handshake and how often they may
// start one (inbound-gate.ts); how long they have to say hello; and, before the costly proof
// check, whether their key may connect at all (`admitInbound`: the service admits keys of the
// validator sets it knows). They also have a cap of their own, so signers that dial in can never
// take the place of the signers the service dials.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { defaultVerifyPossession, type VerifyPossession } from './auth.js';
import { DEFAULT_RECONNECT, validateBackoff, type BackoffOptions } from './backoff.js';
import { Dialer } from './dialer.js';
import { PeerRequestError } from './errors.js';
import { CloseCode, DEFAULT_MAX_FRAME_BYTES, ProtocolError, encodeSignBody } from './frames.js';
import { DEFAULT_HEARTBEAT_MS } from './heartbeat.js';
import { silentLogger, type PeerLogger } from './logger.js';
import { InboundGate, type RefusalKind } from './inbound-gate.js';
import { DEFAULT_PENALTIES, PenaltyBox, type PenaltyOptions } from '../util/penalty-box.js';
import { DEFAULT_LOG_LIMIT, LogLimiter } from '../util/log-limiter.js';
import { failedAsk, type AskDone, type AskTicket } from '../util/ask.js';
import { ServiceSession, type SessionHooks, type SessionLimits } from './service-session.js';
import { socketOptions } from './socket.js';
import type { PeerAnswer, SignatureRequest } from './types.js';

export type { PeerAnswer, SignatureRequest } from './types.js';
export { PeerRequestError } from './errors.js';
export type { VerifyPossession } from './auth.js';

export interface PeerPoolOptions {
  /** Signers to dial (each runs `warpgate signer --listen`). */
  dial?: { url: string }[];
  /** Checks a handshake proof; defaults to pure-JS BLS on this thread. */
  verifyPossession?: VerifyPossession;
  requestTimeoutMs?: number;
  heartbeatMs?: number;
  maxFrameBytes?: number;
  handshakeTimeoutMs?: number;
  reconnect?: BackoffOptions;
  /** Requests sent to one peer and not yet answered; more wait in a queue. */
  maxInFlightPerPeer?: number;
  /** Requests waiting for a slot per peer; beyond this, request() fails with 'overloaded'. */
  maxQueuedPerPeer?: number;
  /**
   * Decides, before the proof check, whether a key that dialed in may connect: undefined admits
   * it, a string is why not (sent to the peer as the close reason). Keys the pool dialed are not
   * asked. Default: every key.
   */
  admitInbound?: (publicKeyHex: string) => string | undefined;
  /** Authenticated connections that dialed in, at most; the ones the pool dials do not count. */
  maxInboundPeers?: number;
  /** Connections that dialed in and have not authenticated, at once, from everyone. */
  maxPendingHandshakes?: number;
  /** The same from one address (IPv6: one /64). */
  maxPendingPerIp?: number;
  /** Upgrades on the peer path per address per minute (0: no limit). */
  handshakesPerMinutePerIp?: number;
  /** How long a connection that dialed in has to send its hello (dialed ones: handshakeTimeoutMs). */
  helloTimeoutMs?: number;
  /** Repetitive warnings (refusals, handshake failures): at most `max` per kind per interval, then a summary. */
  logLimit?: { max: number; intervalMs: number };
  /** Configured signers whose first dial and handshake may be under way at once. Default 64. */
  dialConcurrency?: number;
  penalties?: PenaltyOptions;
  logger?: PeerLogger;
}

/** Why a connection that dialed in was turned away before it authenticated. */
type InboundRefusal = RefusalKind | 'full' | 'not-admitted';

interface PeerPoolEvents {
  connected: [publicKey: string];
  disconnected: [publicKey: string];
  /** A connection that dialed in was refused (for a metric: the log lines are rate-limited). */
  refused: [kind: InboundRefusal];
}

const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
/** Production defaults of the inbound limits (the config schema has the same). */
const DEFAULT_INBOUND = {
  maxInboundPeers: 10_000,
  maxPendingHandshakes: 256,
  maxPendingPerIp: 8,
  handshakesPerMinutePerIp: 60,
  helloTimeoutMs: 3_000,
} as const;
const DEFAULT_PEERS_PATH = '/v1/peers';

function positiveInt(value: number | undefined, name: string, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`PeerPool option ${name} must be a positive integer, got ${v}`);
  return v;
}

interface DialTarget {
  dialer: Dialer;
  /** The key this URL proved last time, to wait out its cooldown before redialing. */
  lastKey: string | undefined;
  session: ServiceSession | undefined;
}

export class PeerPool extends EventEmitter<PeerPoolEvents> {
  private readonly limits: SessionLimits;
  private readonly requestTimeoutMs: number;
  private readonly maxInboundPeers: number;
  private readonly helloTimeoutMs: number;
  private readonly gate: InboundGate;
  private readonly admitInbound: (publicKeyHex: string) => string | undefined;
  /** Authenticated sessions that dialed in (their cap is maxInboundPeers). */
  private inboundReady = 0;
  private readonly verifyPossession: VerifyPossession;
  private readonly logger: PeerLogger;
  private readonly logLimiter: LogLimiter;
  private readonly penalties: PenaltyBox;
  /** Authenticated sessions by public key hex. */
  private readonly ready = new Map<string, ServiceSession>();
  /** Sessions still in the handshake. */
  private readonly handshaking = new Set<ServiceSession>();
  private readonly targets: DialTarget[];
  private readonly detachers: (() => void)[] = [];
  private wss: WebSocketServer | undefined;
  private started = false;
  /** Targets whose first dial is under way; at most dialConcurrency at a time (see startDials). */
  private readonly firstDials = new Set<DialTarget>();
  private nextDial = 0;
  private readonly dialConcurrency: number;
  private closed = false;
  /** Each request's sign body, encoded once: an aggregation's thousand requests share one request object, so one body. */
  private readonly bodies = new WeakMap<SignatureRequest, Buffer>();

  constructor(opts: PeerPoolOptions) {
    super();
    this.limits = {
      maxFrameBytes: positiveInt(opts.maxFrameBytes, 'maxFrameBytes', DEFAULT_MAX_FRAME_BYTES),
      helloTimeoutMs: positiveInt(opts.handshakeTimeoutMs, 'handshakeTimeoutMs', DEFAULT_HANDSHAKE_TIMEOUT_MS),
      heartbeatMs: positiveInt(opts.heartbeatMs, 'heartbeatMs', DEFAULT_HEARTBEAT_MS),
      maxInFlight: positiveInt(opts.maxInFlightPerPeer, 'maxInFlightPerPeer', 256),
      maxQueued: positiveInt(opts.maxQueuedPerPeer, 'maxQueuedPerPeer', 4096),
    };
    this.requestTimeoutMs = positiveInt(opts.requestTimeoutMs, 'requestTimeoutMs', DEFAULT_REQUEST_TIMEOUT_MS);
    this.maxInboundPeers = positiveInt(opts.maxInboundPeers, 'maxInboundPeers', DEFAULT_INBOUND.maxInboundPeers);
    this.helloTimeoutMs = positiveInt(opts.helloTimeoutMs, 'helloTimeoutMs', DEFAULT_INBOUND.helloTimeoutMs);
    this.gate = new InboundGate({
      maxPending: positiveInt(opts.maxPendingHandshakes, 'maxPendingHandshakes', DEFAULT_INBOUND.maxPendingHandshakes),
      maxPendingPerIp: positiveInt(opts.maxPendingPerIp, 'maxPendingPerIp', DEFAULT_INBOUND.maxPendingPerIp),
      handshakesPerMinutePerIp: opts.handshakesPerMinutePerIp ?? DEFAULT_INBOUND.handshakesPerMinutePerIp,
    });
    this.admitInbound = opts.admitInbound ?? (() => undefined);
    this.dialConcurrency = positiveInt(opts.dialConcurrency, 'dialConcurrency', 64);
    this.verifyPossession = opts.verifyPossession ?? defaultVerifyPossession;
    this.logger = opts.logger ?? silentLogger;
    const logger = this.logger;
    this.logLimiter = new LogLimiter({
      ...(opts.logLimit ?? DEFAULT_LOG_LIMIT),
      summary: (kind, suppressed) => logger.warn({ kind, suppressed }, 'suppressed repeated peer log lines'),
    });
    this.penalties = new PenaltyBox(opts.penalties ?? DEFAULT_PENALTIES);
    const reconnect = validateBackoff(opts.reconnect ?? DEFAULT_RECONNECT);
    this.targets = (opts.dial ?? []).map(({ url }) => {
      const target: DialTarget = {
        lastKey: undefined,
        session: undefined,
        dialer: new Dialer({
          url,
          reconnect,
          maxFrameBytes: this.limits.maxFrameBytes,
          handshakeTimeoutMs: this.limits.helloTimeoutMs,
          logger: this.logger,
          onOpen: (ws) => this.accept(ws, url, target, undefined),
          minDelayMs: () => (target.lastKey ? this.penalties.cooldownRemaining(target.lastKey) : 0),
        }),
      };
      return target;
    });
  }

  /** Begins dialing the configured signers (and keeps redialing them until close()). */
  start(): void {
    if (this.closed) throw new Error('PeerPool is closed');
    if (this.started) return;
    this.started = true;
    this.startDials();
  }

  /**
   * First dials go out dialConcurrency at a time, the next as each handshake settles (or its
   * deadline passes). Every signer proves its key with a pure-JS BLS signature (~20–40 ms of its
   * CPU): challenging 1,000 signers on one machine at once starves them all past their deadlines.
   */
  private startDials(): void {
    while (!this.closed && this.nextDial < this.targets.length && this.firstDials.size < this.dialConcurrency) {
      const target = this.targets[this.nextDial++]!;
      this.firstDials.add(target);
      const timer = setTimeout(() => this.firstDialSettled(target), this.limits.helloTimeoutMs);
      timer.unref();
      target.dialer.start();
    }
  }

  private firstDialSettled(target: DialTarget | undefined): void {
    if (target && this.firstDials.delete(target)) this.startDials();
  }

  /** Accepts signers that dial in (`warpgate signer --connect ws://host/v1/peers`) on `server`. */
  attach(server: Server, path: string = DEFAULT_PEERS_PATH): void {
    if (this.closed) throw new Error('PeerPool is closed');
    const wss = (this.wss ??= new WebSocketServer({ noServer: true, ...socketOptions(this.limits.maxFrameBytes) }));
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
      const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (pathname !== path) {
        // Another upgrade handler may own this path; with none, answer instead of hanging.
        if (server.listenerCount('upgrade') === 1) refuseUpgrade(socket, 404, 'Not Found');
        return;
      }
      if (this.closed) return refuseUpgrade(socket, 503, 'Service Unavailable');
      const remote = req.socket.remoteAddress ?? '?';
      const slot = this.gate.enter(remote);
      if (!slot.ok) {
        this.refused(slot.kind, { remote, reason: slot.reason }, 'refusing a peer connection');
        return refuseUpgrade(socket, slot.status, slot.status === 429 ? 'Too Many Requests' : 'Service Unavailable', slot.retryAfterSeconds);
      }
      if (this.inboundReady >= this.maxInboundPeers) {
        slot.release();
        this.refused('full', { remote, reason: `the service has ${this.maxInboundPeers} peers that dialed in` }, 'refusing a peer connection');
        return refuseUpgrade(socket, 503, 'Service Unavailable', 30);
      }
      // The slot is held until the session authenticates or closes; a failed upgrade frees it too.
      socket.once('close', slot.release);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const origin = `${remote}:${req.socket.remotePort ?? '?'}`;
        if (this.closed) ws.terminate();
        else this.accept(ws, origin, undefined, slot.release);
      });
    };
    server.on('upgrade', onUpgrade);
    this.detachers.push(() => server.off('upgrade', onUpgrade));
  }

  /** Stops dialing, closes every connection and fails outstanding requests with 'closed'. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const detach of this.detachers.splice(0)) detach();
    const sessions = [...this.ready.values(), ...this.handshaking];
    await Promise.all([
      ...sessions.map((s) => s.close(CloseCode.goingAway, 'shutting down', 'closed')),
      ...this.targets.map((t) => t.dialer.stop()),
    ]);
    this.wss?.close();
    this.wss = undefined;
    this.logLimiter.close();
  }

  isConnected(publicKey: string): boolean {
    return this.ready.has(publicKey.toLowerCase());
  }

  /** A first dial to a configured signer is under way: its key, unknown until it connects, may be this one (PeerSource.connecting). */
  connecting(publicKey: string): boolean {
    return this.started && !this.closed && (this.firstDials.size > 0 || this.nextDial < this.targets.length) && !this.isConnected(publicKey);
  }

  connectedKeys(): string[] {
    return [...this.ready.keys()];
  }

  /** Asks the peer with this key to sign; rejects with PeerRequestError, or the caller's own abort reason (see abortedBy). */
  request(publicKey: string, req: SignatureRequest, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<PeerAnswer> {
    const key = publicKey.toLowerCase();
    if (this.closed) return Promise.reject(new PeerRequestError('closed', key, 'the peer pool is closed'));
    const session = this.ready.get(key);
    if (!session) return Promise.reject(new PeerRequestError('not-connected', key, 'no connection for this key'));
    return session.request(this.bodyOf(req), opts?.timeoutMs ?? this.requestTimeoutMs, opts?.signal);
  }

  /**
   * request() in the callback form the aggregator uses (aggregator/peer-source.ts): no Promise,
   * timer or abort listener; the caller cancels the ticket at its deadline. `publicKey` is lower-case hex.
   */
  ask(publicKey: string, req: SignatureRequest, timeoutMs: number, done: AskDone<PeerAnswer>): AskTicket {
    if (this.closed) return failedAsk(new PeerRequestError('closed', publicKey, 'the peer pool is closed'), done);
    const session = this.ready.get(publicKey);
    if (!session) return failedAsk(new PeerRequestError('not-connected', publicKey, 'no connection for this key'), done);
    return session.ask(this.bodyOf(req), timeoutMs, done);
  }

  private bodyOf(req: SignatureRequest): Buffer {
    let body = this.bodies.get(req);
    if (!body) {
      body = encodeSignBody(req.message, req.justification);
      this.bodies.set(req, body);
    }
    return body;
  }

  /** Records a strike against a key; at the threshold it is disconnected and refused for a cooldown. */
  penalize(publicKey: string, reason: string): void {
    const key = publicKey.toLowerCase();
    const banned = this.penalties.strike(key);
    this.logger.warn({ publicKey: key, reason, banned }, banned ? 'peer penalized, disconnecting it for a cooldown' : 'peer penalized');
    if (banned) void this.ready.get(key)?.close(CloseCode.penalized, `penalized: ${reason}`);
  }

  stats(): { connected: number; inbound: number; pendingHandshakes: number; dialing: number; inFlight: number; queued: number } {
    let inFlight = 0;
    let queued = 0;
    for (const s of this.ready.values()) {
      inFlight += s.inFlightCount;
      queued += s.queuedCount;
    }
    const dialing = this.started && !this.closed ? this.targets.filter((t) => !t.session?.isReady).length : 0;
    return { connected: this.ready.size, inbound: this.inboundReady, pendingHandshakes: this.gate.pending, dialing, inFlight, queued };
  }

  /** A connection that dialed in is refused: counted, and logged within the log limit. */
  private refused(kind: InboundRefusal, fields: object, msg: string): void {
    this.emit('refused', kind);
    this.logLimiter.log(`refused: ${kind}`, () => this.logger.warn({ ...fields, kind }, msg));
  }

  /**
   * Runs the protocol on an open socket. `release` (inbound only) frees its handshake slot; a
   * connection that dialed in is inbound, one the pool dialed has a `target`.
   */
  private accept(ws: WebSocket, origin: string, target: DialTarget | undefined, release: (() => void) | undefined): void {
    const inbound = target === undefined;
    const hooks: SessionHooks = {
      logger: this.logger,
      warnLimited: (kind, fields, msg) => this.logLimiter.log(kind, () => this.logger.warn(fields, msg)),
      verifyPossession: this.verifyPossession,
      admit: (key) => this.admit(key, inbound),
      authenticated: (session) => {
        if (this.closed) return new ProtocolError(CloseCode.goingAway, 'shutting down');
        this.handshaking.delete(session);
        this.ready.set(session.publicKey!, session);
        if (inbound) this.inboundReady++;
        release?.();
        return undefined;
      },
      ready: (session) => {
        if (target) {
          target.lastKey = session.publicKey;
          target.dialer.markHealthy();
        }
        this.firstDialSettled(target);
        this.emit('connected', session.publicKey!);
      },
      closed: (session, wasReady) => {
        this.handshaking.delete(session);
        release?.();
        if (target?.session === session) target.session = undefined;
        if (target && session.publicKey) target.lastKey = session.publicKey;
        this.firstDialSettled(target);
        const key = session.publicKey;
        if (key !== undefined && this.ready.get(key) === session) {
          this.ready.delete(key);
          if (inbound) this.inboundReady--;
          if (wasReady) this.emit('disconnected', key);
        }
      },
    };
    const limits = inbound ? { ...this.limits, helloTimeoutMs: this.helloTimeoutMs } : this.limits;
    const session = new ServiceSession(ws, origin, limits, hooks);
    if (target) target.session = session;
    this.handshaking.add(session);
    session.start();
  }

  /** Cheap checks, before the proof check and again after it (the pool may have changed meanwhile). */
  private admit(key: string, inbound: boolean): ProtocolError | undefined {
    if (inbound) {
      // First, so that a key the service does not know learns nothing else about it.
      const refusal = this.admitInbound(key);
      if (refusal !== undefined) {
        this.emit('refused', 'not-admitted');
        return new ProtocolError(CloseCode.notAdmitted, refusal);
      }
    }
    const cooldown = this.penalties.cooldownRemaining(key);
    if (cooldown > 0) return new ProtocolError(CloseCode.penalized, `key is cooling down after penalties for ${Math.ceil(cooldown / 1000)} s`);
    if (this.ready.has(key)) return new ProtocolError(CloseCode.duplicate, 'this key already has a connection');
    if (inbound && this.inboundReady >= this.maxInboundPeers) {
      this.emit('refused', 'full');
      return new ProtocolError(CloseCode.full, `the service has ${this.maxInboundPeers} peers that dialed in`);
    }
    return undefined;
  }
}

function refuseUpgrade(socket: Duplex, status: number, text: string, retryAfterSeconds?: number): void {
  socket.once('finish', () => socket.destroy());
  const retry = retryAfterSeconds === undefined ? '' : `Retry-After: ${retryAfterSeconds}\r\n`;
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${retry}Connection: close\r\nContent-Length: 0\r\n\r\n`);
}
