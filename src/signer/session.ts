// The signer's side of one connection to the service, whoever dialed: answer the challenge with a
// proof of key possession, wait for the welcome, then answer signature requests by id. A request
// passes this connection's rate and in-flight limits and the signer-wide ones (limits.ts), or is
// refused at once; its message is parsed (a malformed one is refused), then the backend decides.
// Nothing is signed before the welcome: a sign frame before it closes the connection (4007).
import type WebSocket from 'ws';
import type { BlsBackend, SecretKey, Signature } from '../bls/types.js';
import { proveKey } from '../peers/auth.js';
import { SIGNATURE_LENGTH, SIGNATURE_UNCOMPRESSED_LENGTH } from '../bls/constants.js';
import { isInfinityEncoding, signatureFromEitherForm } from '../bls/forms.js';
import { CloseCode, ProtocolError, decodeFrame, encodeFrame, encodeSignature, type ServiceFrame, type SignFrame } from '../peers/frames.js';
import { startHeartbeat } from '../peers/heartbeat.js';
import type { PeerLogger } from '../peers/logger.js';
import { closeSocket, sendFrame } from '../peers/socket.js';
import { concatBytes, bytesToHex, hexToBytes } from '../warp/hex.js';
import { parseUnsignedMessage, type UnsignedMessage } from '../warp/unsigned-message.js';
import type { FaultMode } from './faults.js';
import type { RequestGate } from './limits.js';
import { TokenBucket, type RateLimit } from './rate-limit.js';
import type { SignOutcome, SigningBackend } from './types.js';

export interface SignerSessionConfig {
  secretKey: SecretKey;
  publicKey: Uint8Array;
  bls: BlsBackend;
  backend: SigningBackend;
  maxFrameBytes: number;
  handshakeTimeoutMs: number;
  /** From our hello to the service's welcome (the service checks proofs in a queue). */
  welcomeTimeoutMs: number;
  heartbeatMs: number;
  rateLimit: RateLimit;
  maxInFlight: number;
  /** Shared by every connection of the signer. */
  gate: RequestGate;
  faults: FaultMode | undefined;
  /** The other key that the 'wrong-key' fault signs with. */
  otherKey: SecretKey | undefined;
  answerDelayMs: ((message: UnsignedMessage) => number) | undefined;
  logger: PeerLogger;
}

type State = 'challenge' | 'hello-sent' | 'ready' | 'closed';

export class SignerSession {
  private state: State = 'challenge';
  private handshakeTimer: NodeJS.Timeout | undefined;
  private readonly bucket: TokenBucket;
  private inFlight = 0;
  /** Delayed answers not yet sent; cleared when the connection ends. */
  private readonly delayed = new Set<NodeJS.Timeout>();
  /** The service's welcome asked for the 192-byte uncompressed form. */
  private uncompressed = false;

  constructor(
    private readonly ws: WebSocket,
    /** The dialed URL or the remote address, for logs. */
    readonly origin: string,
    private readonly cfg: SignerSessionConfig,
    private readonly onWelcome: () => void,
    private readonly onClosed: (session: SignerSession) => void,
  ) {
    this.bucket = new TokenBucket(cfg.rateLimit);
  }

  start(): void {
    this.ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    this.ws.on('close', (code, reason) => this.teardown(code, reason.toString()));
    this.ws.on('error', (err) => this.cfg.logger.debug?.({ service: this.origin, err: err.message }, 'service socket error'));
    startHeartbeat(this.ws, this.cfg.heartbeatMs, () => this.cfg.logger.warn({ service: this.origin }, 'service missed its heartbeat'));
    this.handshakeTimer = setTimeout(
      () => this.fail(new ProtocolError(CloseCode.handshakeTimeout, `handshake not completed within ${this.cfg.handshakeTimeoutMs} ms`)),
      this.cfg.handshakeTimeoutMs,
    );
  }

  close(code: number, reason: string): Promise<void> {
    const closing = closeSocket(this.ws, code, reason);
    this.teardown(code, reason);
    return closing;
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.state === 'closed') return;
    try {
      this.onFrame(decodeFrame(data, isBinary, 'service', this.cfg.maxFrameBytes));
    } catch (err) {
      if (err instanceof ProtocolError) this.fail(err);
      else throw err;
    }
  }

  private onFrame(frame: ServiceFrame): void {
    switch (frame.type) {
      case 'challenge': {
        if (this.state !== 'challenge') throw new ProtocolError(CloseCode.unexpected, 'a second challenge');
        const proof = proveKey(this.cfg.bls, this.cfg.secretKey, hexToBytes(frame.challenge));
        this.state = 'hello-sent';
        sendFrame(this.ws, encodeFrame({ v: 1, type: 'hello', publicKey: bytesToHex(this.cfg.publicKey), proof: bytesToHex(proof) }));
        // The service may have many proofs to check before ours (all signers connect at once
        // after it restarts): give the welcome its own, longer deadline.
        clearTimeout(this.handshakeTimer);
        this.handshakeTimer = setTimeout(
          () => this.fail(new ProtocolError(CloseCode.handshakeTimeout, `no welcome within ${this.cfg.welcomeTimeoutMs} ms of the hello`)),
          this.cfg.welcomeTimeoutMs,
        );
        return;
      }
      case 'welcome':
        if (this.state !== 'hello-sent') throw new ProtocolError(CloseCode.unexpected, 'welcome before hello');
        this.state = 'ready';
        this.uncompressed = frame.uncompressedSignatures === true;
        clearTimeout(this.handshakeTimer);
        this.cfg.logger.info({ service: this.origin }, 'authenticated to the service');
        this.onWelcome();
        return;
      case 'sign':
        if (this.state !== 'ready') throw new ProtocolError(CloseCode.unexpected, 'sign before welcome');
        this.onSign(frame);
        return;
    }
  }

  private onSign(frame: SignFrame): void {
    if (!this.bucket.take()) return this.answer(frame.id, { kind: 'refused', reason: 'rate limited' });
    if (this.inFlight >= this.cfg.maxInFlight) {
      return this.answer(frame.id, { kind: 'refused', reason: `busy: ${this.cfg.maxInFlight} requests in progress` });
    }
    const gate = this.cfg.gate;
    const refusal = gate.enter();
    if (refusal !== null) return this.answer(frame.id, { kind: 'refused', reason: refusal });
    let message: UnsignedMessage;
    try {
      message = parseUnsignedMessage(frame.message);
    } catch (err) {
      gate.leave();
      return this.answer(frame.id, { kind: 'refused', reason: `malformed message: ${(err as Error).message}` });
    }
    const faults = this.cfg.faults;
    if (faults === 'silent' || faults === 'garbage' || faults === 'disconnect') {
      gate.leave();
      if (faults === 'silent') return;
      if (faults === 'garbage') {
        // A signature frame cut short: its header and half a signature.
        sendFrame(this.ws, encodeSignature(frame.id, new Uint8Array(SIGNATURE_LENGTH)).subarray(0, 58));
        return;
      }
      this.ws.terminate();
      return;
    }
    this.inFlight++;
    this.outcome(message, frame.justification)
      .catch((err: unknown): SignOutcome => {
        this.cfg.logger.warn({ err: (err as Error).message }, 'signing backend failed');
        return { kind: 'refused', reason: `signer error: ${(err as Error).message}` };
      })
      .then((outcome) => {
        this.inFlight--;
        gate.leave();
        const delay = this.cfg.answerDelayMs?.(message) ?? 0;
        if (delay <= 0) return this.answer(frame.id, outcome);
        const timer = setTimeout(() => {
          this.delayed.delete(timer);
          this.answer(frame.id, outcome);
        }, delay);
        this.delayed.add(timer);
      });
  }

  private async outcome(message: UnsignedMessage, justification: Uint8Array): Promise<SignOutcome> {
    const { bls, secretKey, faults, otherKey } = this.cfg;
    if (faults === 'invalid-signature') {
      // A genuine signature by this key, but over other bytes: well-formed and in the subgroup.
      return { kind: 'signature', signature: bls.sign(secretKey, concatBytes(message.bytes, Uint8Array.of(0))).bytes };
    }
    if (faults === 'wrong-key' && otherKey) {
      return { kind: 'signature', signature: bls.sign(otherKey, message.bytes).bytes };
    }
    return this.cfg.backend.sign(message, justification);
  }

  private answer(id: number, outcome: SignOutcome): void {
    if (this.state !== 'ready') return;
    if (outcome.kind === 'signature') outcome = this.inServiceForm(outcome.signature);
    sendFrame(
      this.ws,
      outcome.kind === 'signature' ? encodeSignature(id, outcome.signature) : encodeFrame({ v: 1, type: 'refused', id, reason: outcome.reason }),
    );
  }

  /**
   * The backend's signature in the form the service asked for. A conversion parses the point with
   * every check (the subgroup included), so what does not decode is refused here, never sent: a
   * backend that answers in the form asked costs nothing (the key file makes the uncompressed form;
   * a node answers compressed, so a node-backed signer pays one parse per answer). The point at
   * infinity (its flag is the same in both forms) is no one's valid signature: refused either way.
   */
  private inServiceForm(signature: Uint8Array): SignOutcome {
    const { bls } = this.cfg;
    if (isInfinityEncoding(signature)) return { kind: 'refused', reason: 'signer error: the backend produced the point at infinity' };
    if (signature.length === (this.uncompressed ? SIGNATURE_UNCOMPRESSED_LENGTH : SIGNATURE_LENGTH)) return { kind: 'signature', signature };
    let parsed: Signature;
    try {
      parsed = signatureFromEitherForm(bls, signature);
    } catch (err) {
      return { kind: 'refused', reason: `signer error: the backend produced a signature that does not decode (${(err as Error).message})` };
    }
    return { kind: 'signature', signature: this.uncompressed ? bls.signatureUncompressed(parsed) : parsed.bytes };
  }

  private fail(err: ProtocolError): void {
    if (this.state === 'closed') return;
    this.cfg.logger.warn({ service: this.origin, code: err.code, reason: err.reason }, 'closing the connection to the service');
    void this.close(err.code, err.reason);
  }

  private teardown(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.handshakeTimer);
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
    this.cfg.logger.info({ service: this.origin, code, reason }, 'connection to the service closed');
    this.onClosed(this);
  }
}
