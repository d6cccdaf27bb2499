// The service's side of one peer connection, whoever dialed it: challenge, proof check, then
// signature requests multiplexed by id with deadlines, an in-flight cap and a bounded queue.
import type WebSocket from 'ws';
import { bytesToHex, hexToBytes } from '../warp/hex.js';
import { authMessage, newChallenge, type VerifyPossession } from './auth.js';
import { PeerRequestError } from './errors.js';
import type { RequestFailure } from '../util/request-failure.js';
import { askAsPromise, failedAsk, PendingAsk, type AskDone, type AskTicket } from '../util/ask.js';
import { CloseCode, ProtocolError, SIGN_HEADER_BYTES, decodeFrame, encodeFrame, type SignerFrame } from './frames.js';
import { startHeartbeat } from './heartbeat.js';
import type { PeerLogger } from './logger.js';
import { closeSocket, sendFrame, sendSign } from './socket.js';
import type { PeerAnswer } from './types.js';

/** Longest refusal reason handed to the aggregator. */
const MAX_REASON_CHARS = 512;

export interface SessionLimits {
  maxFrameBytes: number;
  /** From the challenge to the peer's hello. */
  helloTimeoutMs: number;
  heartbeatMs: number;
  maxInFlight: number;
  maxQueued: number;
}

export interface SessionHooks {
  /** Cheap admission checks (cooldown, duplicate, capacity), run before and after the proof check. */
  admit(publicKey: string): ProtocolError | undefined;
  verifyPossession: VerifyPossession;
  /** The proof verified: index the session. A refusal here closes it. */
  authenticated(session: ServiceSession): ProtocolError | undefined;
  /** The peer has been welcomed; requests may be sent. */
  ready(session: ServiceSession): void;
  /** Called once, when the session ends. */
  closed(session: ServiceSession, wasReady: boolean): void;
  logger: PeerLogger;
  /** A warning that a flood could repeat many times a second: written within a per-kind limit. */
  warnLimited(kind: string, fields: object, msg: string): void;
}

const NOTHING = Buffer.alloc(0);

/** A request of this session, from ask() to its answer; its own ticket. */
class Pending extends PendingAsk<PeerAnswer> {
  constructor(
    session: ServiceSession,
    readonly id: number,
    /** The shared sign body (encodeSignBody) until the request is sent; nothing after. */
    public body: Buffer,
    /** The heartbeat drops it past its deadline, should its caller never cancel it. */
    deadline: number,
    done: AskDone<PeerAnswer>,
  ) {
    super(session, deadline, done);
  }
}

type SessionState = 'handshake' | 'verifying' | 'ready' | 'closed';

/**
 * What a request cancelled by its caller rejects with: the caller's own reason when it already
 * says so in the failure vocabulary (an Error whose `reason` is 'aborted', such as a
 * PeerRequestError: a collection cancels hundreds at once with one shared reason, no Error each),
 * else a new PeerRequestError.
 */
function abortedBy(signal: AbortSignal, key: string): Error {
  const given: unknown = signal.reason;
  return given instanceof Error && (given as { reason?: unknown }).reason === 'aborted' ? given : new PeerRequestError('aborted', key, 'request aborted by the caller');
}

export class ServiceSession {
  /** Hex of the peer's 48-byte public key, once it has said hello. */
  publicKey: string | undefined;
  private state: SessionState = 'handshake';
  private readonly challenge = newChallenge();
  private handshakeTimer: NodeJS.Timeout | undefined;
  private nextId = 0;
  private readonly inFlight = new Map<number, Pending>();
  private readonly queue = new Map<number, Pending>();
  /** What outstanding requests fail with when the session ends. */
  private endReason: RequestFailure = 'disconnected';

  constructor(
    private readonly ws: WebSocket,
    /** The dialed URL or the remote address, for logs. */
    readonly origin: string,
    private readonly limits: SessionLimits,
    private readonly hooks: SessionHooks,
  ) {}

  get isReady(): boolean {
    return this.state === 'ready';
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get queuedCount(): number {
    return this.queue.size;
  }

  start(): void {
    this.ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    this.ws.on('close', (code, reason) => this.teardown(code, reason.toString()));
    this.ws.on('error', (err) => this.hooks.logger.debug?.({ peer: this.origin, err: err.message }, 'peer socket error'));
    startHeartbeat(
      this.ws,
      this.limits.heartbeatMs,
      () => this.hooks.warnLimited('heartbeat', { peer: this.origin, publicKey: this.publicKey }, 'peer missed its heartbeat, dropping it'),
      () => this.dropExpired(),
    );
    this.handshakeTimer = setTimeout(
      () => this.fail(new ProtocolError(CloseCode.handshakeTimeout, `no valid hello within ${this.limits.helloTimeoutMs} ms`)),
      this.limits.helloTimeoutMs,
    );
    sendFrame(this.ws, encodeFrame({ v: 1, type: 'challenge', challenge: bytesToHex(this.challenge) }));
  }

  /**
   * Asks for a signature. `body` is the sign frame's body (encodeSignBody), shared by every
   * request about the same message: a request keeps no copy of it, and no frame once sent. No
   * timer: the caller cancels at its deadline (aggregator/peer-source.ts); the heartbeat drops
   * what is left past `timeoutMs`.
   */
  ask(body: Buffer, timeoutMs: number, done: AskDone<PeerAnswer>): AskTicket {
    const key = this.publicKey ?? '';
    if (this.state !== 'ready') {
      return failedAsk(new PeerRequestError(this.state === 'closed' ? this.endReason : 'not-connected', key, 'connection is not ready'), done);
    }
    const frameBytes = SIGN_HEADER_BYTES + body.length;
    if (frameBytes > this.limits.maxFrameBytes) {
      return failedAsk(new PeerRequestError('protocol', key, `request frame of ${frameBytes} bytes exceeds the peer frame limit of ${this.limits.maxFrameBytes}`), done);
    }
    if (this.inFlight.size >= this.limits.maxInFlight && this.queue.size >= this.limits.maxQueued) {
      return failedAsk(new PeerRequestError('overloaded', key, `${this.limits.maxInFlight} requests in flight and ${this.limits.maxQueued} queued`), done);
    }
    const p = new Pending(this, this.nextId++, body, Date.now() + timeoutMs, done);
    if (this.inFlight.size < this.limits.maxInFlight) this.send(p);
    else this.queue.set(p.id, p);
    return p;
  }

  /** ask() as a Promise, with its own timer and abort listener (for callers other than the aggregator). */
  request(body: Buffer, timeoutMs: number, signal: AbortSignal | undefined): Promise<PeerAnswer> {
    const key = this.publicKey ?? '';
    if (this.state === 'ready' && signal?.aborted) return Promise.reject(abortedBy(signal, key));
    return askAsPromise<PeerAnswer>((done) => this.ask(body, timeoutMs, done), {
      signal,
      aborted: () => abortedBy(signal!, key),
      timeout: { ms: timeoutMs, error: () => new PeerRequestError('timeout', key, `no answer within ${timeoutMs} ms`) },
    });
  }

  /** Ends the session; outstanding requests fail with `failure` at once. */
  close(code: number, reason: string, failure: RequestFailure = 'disconnected'): Promise<void> {
    this.endReason = failure;
    const closing = closeSocket(this.ws, code, reason);
    this.teardown(code, reason);
    return closing;
  }

  private send(p: Pending): void {
    this.inFlight.set(p.id, p);
    sendSign(this.ws, p.id, p.body);
    p.body = NOTHING;
  }

  /** Finishes a request exactly once, frees its slot and sends the next queued one. */
  private settle(p: Pending, outcome: PeerAnswer | Error): void {
    if (!this.inFlight.delete(p.id) && !this.queue.delete(p.id)) return;
    if (outcome instanceof Error) p.done(outcome, undefined);
    else p.done(undefined, outcome);
    this.pump();
  }

  /** Its caller stopped waiting: the request leaves without a word to it (a late answer is ignored). */
  forget(p: Pending): void {
    if (!this.inFlight.delete(p.id) && !this.queue.delete(p.id)) return;
    this.pump();
  }

  /** The heartbeat's sweep: requests left past their deadline (a caller that never cancelled) time out. */
  private dropExpired(): void {
    const now = Date.now();
    for (const p of [...this.inFlight.values(), ...this.queue.values()]) {
      if (p.deadline <= now) this.settle(p, new PeerRequestError('timeout', this.publicKey ?? '', 'no answer before the deadline'));
    }
  }

  private pump(): void {
    if (this.state !== 'ready') return;
    for (const [id, next] of this.queue) {
      if (this.inFlight.size >= this.limits.maxInFlight) break;
      this.queue.delete(id);
      this.send(next);
    }
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.state === 'closed') return;
    let frame: SignerFrame;
    try {
      frame = decodeFrame(data, isBinary, 'signer', this.limits.maxFrameBytes);
      if (frame.type !== 'hello') this.onAnswer(frame);
      else if (this.state !== 'handshake') throw new ProtocolError(CloseCode.unexpected, 'a second hello');
      else void this.onHello(frame.publicKey, frame.proof);
    } catch (err) {
      if (err instanceof ProtocolError) this.fail(err);
      else throw err;
    }
  }

  private async onHello(publicKeyHex: string, proofHex: string): Promise<void> {
    this.state = 'verifying';
    // The peer answered in time. Checking its proof is our own work, queued behind every other
    // proof when many peers connect at once (a restart beside 1,000 signers): timing that out
    // would drop peers for our slowness and redo the work on their reconnect, a livelock.
    clearTimeout(this.handshakeTimer);
    const publicKey = publicKeyHex.toLowerCase();
    this.publicKey = publicKey;
    const early = this.hooks.admit(publicKey);
    if (early) return this.fail(early);
    let valid: boolean;
    try {
      valid = await this.hooks.verifyPossession(hexToBytes(publicKey), authMessage(this.challenge), hexToBytes(proofHex));
    } catch (err) {
      this.hooks.warnLimited('proof check failed', { peer: this.origin, err: (err as Error).message }, 'proof verification failed to run');
      return this.fail(new ProtocolError(CloseCode.internalError, 'could not verify the proof'));
    }
    if (this.state !== 'verifying') return; // closed while we were verifying
    if (!valid) return this.fail(new ProtocolError(CloseCode.authFailed, 'the proof does not verify for this public key and challenge'));
    const late = this.hooks.admit(publicKey) ?? this.hooks.authenticated(this);
    if (late) return this.fail(late);
    clearTimeout(this.handshakeTimer);
    this.state = 'ready';
    // Uncompressed signatures: the aggregator's workers then add them up without a square root each.
    sendFrame(this.ws, encodeFrame({ v: 1, type: 'welcome', uncompressedSignatures: true }));
    this.hooks.logger.info({ peer: this.origin, publicKey }, 'peer authenticated');
    this.hooks.ready(this);
  }

  private onAnswer(frame: Exclude<SignerFrame, { type: 'hello' }>): void {
    if (this.state !== 'ready') throw new ProtocolError(CloseCode.unexpected, `'${frame.type}' before the handshake completed`);
    const p = this.inFlight.get(frame.id);
    if (!p) {
      // Answers to requests that already timed out are normal; answers to ids never sent are not.
      if (frame.id >= this.nextId || this.queue.has(frame.id)) {
        throw new ProtocolError(CloseCode.unexpected, `answer to request ${frame.id}, which was never sent`);
      }
      return;
    }
    this.settle(
      p,
      frame.type === 'signature'
        ? { kind: 'signature', signature: frame.signature }
        : { kind: 'refused', reason: frame.reason.slice(0, MAX_REASON_CHARS) },
    );
  }

  private fail(err: ProtocolError): void {
    if (this.state === 'closed') return;
    this.hooks.warnLimited(
      `closing: ${err.code}`,
      { peer: this.origin, publicKey: this.publicKey, code: err.code, reason: err.reason },
      'closing peer connection',
    );
    void this.close(err.code, err.reason);
  }

  private teardown(code: number, reason: string): void {
    if (this.state === 'closed') return;
    const wasReady = this.state === 'ready';
    this.state = 'closed';
    clearTimeout(this.handshakeTimer);
    const key = this.publicKey ?? '';
    const detail = `connection closed (${code}${reason ? ` ${reason}` : ''})`;
    for (const p of [...this.inFlight.values(), ...this.queue.values()]) {
      this.settle(p, new PeerRequestError(this.endReason, key, detail));
    }
    this.hooks.closed(this, wasReady);
  }
}
