// A validator's signer peer: listens for the service (`listen`), dials it (`connect`), or both,
// and answers signature requests with its backend. Protocol: docs/peer-protocol.md.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BlsBackend, SecretKey } from '../bls/types.js';
import { DEFAULT_RECONNECT, validateBackoff, type BackoffOptions } from '../peers/backoff.js';
import { Dialer } from '../peers/dialer.js';
import { CloseCode, DEFAULT_MAX_FRAME_BYTES } from '../peers/frames.js';
import { DEFAULT_HEARTBEAT_MS } from '../peers/heartbeat.js';
import { silentLogger, type PeerLogger } from '../peers/logger.js';
import { closeSocket, socketOptions } from '../peers/socket.js';
import { bytesToHex } from '../warp/hex.js';
import type { UnsignedMessage } from '../warp/unsigned-message.js';
import { isFaultMode, type FaultMode } from './faults.js';
import { DEFAULT_INBOUND_LIMITS, DEFAULT_REQUEST_LIMITS, InboundAdmission, RequestGate, type InboundLimits, type RequestLimits } from './limits.js';
import { DEFAULT_SIGNER_RATE_LIMIT, type RateLimit } from './rate-limit.js';
import { SignerSession, type SignerSessionConfig } from './session.js';
import type { SigningBackend } from './types.js';

export const DEFAULT_MAX_CONNECTIONS = 64;

export interface SignerPeerOptions {
  /** The validator's 32-byte BLS secret key; it proves the key in the handshake. */
  secretKey: Uint8Array | SecretKey;
  bls: BlsBackend;
  backend: SigningBackend;
  /** Accept the service's connections on this port (0 = any free port); host defaults to 127.0.0.1. */
  listen?: { port: number; host?: string };
  /** Service URLs to dial, e.g. `ws://service:8080/v1/peers`. */
  connect?: string[];
  maxFrameBytes?: number;
  handshakeTimeoutMs?: number;
  /** From our hello to the service's welcome; default 120 s. */
  welcomeTimeoutMs?: number;
  heartbeatMs?: number;
  reconnect?: BackoffOptions;
  /** Per connection. */
  rateLimit?: RateLimit;
  /** Requests being signed at once per connection; more are refused as busy. */
  maxInFlight?: number;
  /** Request rate and requests in progress over all connections together (limits.ts). */
  requestLimits?: RequestLimits;
  /** Connections at once, dialed and accepted; past it listen mode refuses new ones (4008). */
  maxConnections?: number;
  /** New inbound connections (each costs a key proof) and connections per remote address (limits.ts). */
  inboundLimits?: InboundLimits;
  /** Devnet and tests only: misbehave on purpose (see faults.ts). */
  faults?: FaultMode;
  /** Devnet and benchmark only: wait this long before answering a request. */
  answerDelayMs?: (message: UnsignedMessage) => number;
  logger?: PeerLogger;
}

export class SignerPeer {
  readonly publicKey: Uint8Array;
  /** Hex of the 48-byte compressed public key, as the service indexes it. */
  readonly publicKeyHex: string;
  private readonly session: SignerSessionConfig;
  private readonly sessions = new Set<SignerSession>();
  private readonly dialers: Dialer[];
  private readonly maxConnections: number;
  private readonly admission: InboundAdmission;
  private readonly logger: PeerLogger;
  private http: Server | undefined;
  private wss: WebSocketServer | undefined;
  private state: 'new' | 'started' | 'closed' = 'new';

  constructor(private readonly opts: SignerPeerOptions) {
    if (!opts.listen && !opts.connect?.length) throw new RangeError('a signer peer needs listen, connect, or both');
    if (opts.faults !== undefined && !isFaultMode(opts.faults)) throw new RangeError(`unknown fault mode '${String(opts.faults)}'`);
    const { bls } = opts;
    const secretKey = opts.secretKey instanceof Uint8Array ? bls.secretKeyFromBytes(opts.secretKey) : opts.secretKey;
    this.publicKey = bls.publicKeyOf(secretKey).bytes;
    this.publicKeyHex = bytesToHex(this.publicKey);
    this.logger = opts.logger ?? silentLogger;
    this.maxConnections = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    if (!Number.isSafeInteger(this.maxConnections) || this.maxConnections < 1) throw new RangeError(`maxConnections must be an integer >= 1, got ${this.maxConnections}`);
    this.admission = new InboundAdmission(opts.inboundLimits ?? DEFAULT_INBOUND_LIMITS);
    const maxFrameBytes = opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    const handshakeTimeoutMs = opts.handshakeTimeoutMs ?? 10_000;
    this.session = {
      secretKey,
      publicKey: this.publicKey,
      bls,
      backend: opts.backend,
      maxFrameBytes,
      handshakeTimeoutMs,
      welcomeTimeoutMs: opts.welcomeTimeoutMs ?? 120_000,
      heartbeatMs: opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      rateLimit: opts.rateLimit ?? DEFAULT_SIGNER_RATE_LIMIT,
      maxInFlight: opts.maxInFlight ?? 1024,
      gate: new RequestGate(opts.requestLimits ?? DEFAULT_REQUEST_LIMITS),
      faults: opts.faults,
      otherKey: opts.faults === 'wrong-key' ? bls.generateSecretKey() : undefined,
      answerDelayMs: opts.answerDelayMs,
      logger: this.logger,
    };
    const reconnect = validateBackoff(opts.reconnect ?? DEFAULT_RECONNECT);
    this.dialers = (opts.connect ?? []).map((url) => {
      const dialer: Dialer = new Dialer({
        url,
        reconnect,
        maxFrameBytes,
        handshakeTimeoutMs,
        logger: this.logger,
        onOpen: (ws) => this.run(ws, url, () => dialer.markHealthy()),
      });
      return dialer;
    });
  }

  /** Starts listening and dialing; resolves with the bound port in listen mode. */
  async start(): Promise<{ port?: number }> {
    if (this.state !== 'new') throw new Error(`signer peer already ${this.state}`);
    this.state = 'started';
    let port: number | undefined;
    if (this.opts.listen) port = await this.listen(this.opts.listen.port, this.opts.listen.host ?? '127.0.0.1');
    for (const d of this.dialers) d.start();
    return port === undefined ? {} : { port };
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await Promise.all([
      ...[...this.sessions].map((s) => s.close(CloseCode.goingAway, 'signer shutting down')),
      ...this.dialers.map((d) => d.stop()),
    ]);
    this.wss?.close();
    const http = this.http;
    if (http) {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    }
  }

  private async listen(port: number, host: string): Promise<number> {
    const http = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain', connection: 'close' }).end('this is a warpgate signer peer; connect with WebSocket\n');
    });
    const wss = new WebSocketServer({ server: http, ...socketOptions(this.session.maxFrameBytes) });
    // ws re-emits the HTTP server's errors; listen() below reports them.
    wss.on('error', () => {});
    wss.on('connection', (ws, req) => {
      const address = req.socket.remoteAddress ?? '?';
      const origin = `${address}:${req.socket.remotePort ?? '?'}`;
      if (this.state === 'closed') return ws.terminate();
      // Refused before the challenge arrives, so a refused connection costs no key proof.
      const refusal =
        this.sessions.size >= this.maxConnections ? `this signer accepts ${this.maxConnections} connections` : this.admission.admit(address);
      if (refusal !== null) {
        this.logger.debug?.({ service: origin, reason: refusal }, 'refused a connection');
        void closeSocket(ws, CloseCode.full, refusal);
        return;
      }
      this.run(ws, origin, () => {}, () => this.admission.release(address));
    });
    this.http = http;
    this.wss = wss;
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => {
        http.off('error', reject);
        resolve();
      });
    });
    return (http.address() as AddressInfo).port;
  }

  private run(ws: WebSocket, origin: string, onWelcome: () => void, onClosed: () => void = () => {}): void {
    const session = new SignerSession(ws, origin, this.session, onWelcome, (s) => {
      this.sessions.delete(s);
      onClosed();
    });
    this.sessions.add(session);
    session.start();
  }
}
