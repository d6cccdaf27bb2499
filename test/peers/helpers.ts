// Shared by the peer and signer tests: keys, messages, servers on 127.0.0.1:0, a hand-driven
// "raw" signer for adversarial cases, and waits with deadlines. Everything opened is registered
// with a Closer so afterEach can close it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { signatureFromEitherForm } from '../../src/bls/forms.js';
import { loadBackend, nobleBackend } from '../../src/bls/index.js';
import type { BlsBackend, SecretKey } from '../../src/bls/types.js';
import { authMessage, PEER_AUTH_DST } from '../../src/peers/auth.js';
import { decodeFrame } from '../../src/peers/frames.js';
import { PeerPool, type PeerPoolOptions } from '../../src/peers/pool.js';
import { KeyFileBackend } from '../../src/signer/key-file.js';
import { SignerPeer, type SignerPeerOptions } from '../../src/signer/peer.js';
import { StaticPolicy } from '../../src/signer/policy.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { newUnsignedMessage, type UnsignedMessage } from '../../src/warp/unsigned-message.js';

export const bls: BlsBackend = loadBackend();
export const noble: BlsBackend = nobleBackend();

export const NETWORK_ID = 12345;
export const CHAIN_A = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
export const CHAIN_B = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);

export function message(text: string, opts: { networkId?: number; chain?: Uint8Array } = {}): UnsignedMessage {
  return newUnsignedMessage(opts.networkId ?? NETWORK_ID, opts.chain ?? CHAIN_A, new TextEncoder().encode(text));
}

export function newKey(): { sk: SecretKey; pkHex: string; pk: Uint8Array } {
  const sk = bls.generateSecretKey();
  const pk = bls.publicKeyOf(sk).bytes;
  return { sk, pk, pkHex: bytesToHex(pk) };
}

/** Either form: a service asks signers for the uncompressed one (192 bytes). */
export function verifies(pk: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  try {
    return bls.verify(bls.publicKeyFromBytes(pk), msg, signatureFromEitherForm(bls, sig));
  } catch {
    return false;
  }
}

/** Things to close after each test, closed in reverse order. */
export class Closer {
  private items: (() => Promise<void> | void)[] = [];
  add<T>(item: T, close: (item: T) => Promise<void> | void): T {
    this.items.push(() => close(item));
    return item;
  }
  async closeAll(): Promise<void> {
    const items = this.items.reverse();
    this.items = [];
    for (const close of items) await close();
  }
}

export async function httpServer(closer: Closer, port = 0): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  closer.add(server, (s) => closeServer(s));
  return { server, port: (server.address() as AddressInfo).port };
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export const FAST = {
  reconnect: { minMs: 20, maxMs: 100 },
  heartbeatMs: 5_000,
  handshakeTimeoutMs: 3_000,
} as const;

export function pool(closer: Closer, opts: PeerPoolOptions = {}): PeerPool {
  return closer.add(new PeerPool({ ...FAST, ...opts }), (p) => p.close());
}

export function allowAll(): StaticPolicy {
  return new StaticPolicy({ networkId: NETWORK_ID, allowedSourceChains: [CHAIN_A] });
}

/** A SignerPeer with a fresh key (or `sk`) that signs what allowAll() allows; listens on port 0 unless it connects. */
export function signer(closer: Closer, { sk = bls.generateSecretKey(), ...opts }: Partial<SignerPeerOptions> & { sk?: SecretKey } = {}): SignerPeer {
  const peer = new SignerPeer({
    ...FAST,
    secretKey: sk,
    bls,
    backend: new KeyFileBackend(sk, bls, allowAll()),
    ...(opts.connect ? {} : { listen: { port: 0 } }),
    ...opts,
  });
  return closer.add(peer, (p) => p.close());
}

/** Resolves when `check` returns a truthy value; fails after `ms`. */
export async function waitFor<T>(check: () => T | undefined | false, what: string, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function once<T extends unknown[]>(emitter: { once(e: string, f: (...a: T) => void): unknown }, event: string, ms = 5_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${event}' within ${ms} ms`)), ms);
    emitter.once(event, (...args: T) => {
      clearTimeout(timer);
      resolve(args);
    });
  });
}

function binaryFrameRecord(data: Buffer): Record<string, unknown> {
  const frame = decodeFrame(data, true, 'service', Number.MAX_SAFE_INTEGER);
  return frame.type === 'sign' ? { ...frame, message: bytesToHex(frame.message), justification: bytesToHex(frame.justification) } : { ...frame };
}

/**
 * A signer driven by hand, to misbehave in ways SignerPeer never would. It records every frame it
 * receives; `prove` decides what goes into the hello.
 */
export class RawSigner {
  readonly frames: Record<string, unknown>[] = [];
  closeCode: number | undefined;
  closeReason = '';
  challenges: Uint8Array[] = [];
  private readonly closed: Promise<void>;

  constructor(
    readonly ws: WebSocket,
    private readonly onFrame?: (frame: Record<string, unknown>, raw: RawSigner) => void,
  ) {
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.closeCode = code;
        this.closeReason = reason.toString();
        resolve();
      });
    });
    ws.on('error', () => {});
    ws.on('message', (data, isBinary) => {
      // Sign frames are binary; they are recorded as records too, byte fields as hex.
      const frame = isBinary ? binaryFrameRecord(data as Buffer) : (JSON.parse(data.toString()) as Record<string, unknown>);
      this.frames.push(frame);
      if (frame.type === 'challenge') this.challenges.push(hexToBytes(frame.challenge as string));
      this.onFrame?.(frame, this);
    });
  }

  /** Dials a URL. */
  static async dial(url: string, onFrame?: (f: Record<string, unknown>, raw: RawSigner) => void, opts: WebSocket.ClientOptions = {}): Promise<RawSigner> {
    const ws = new WebSocket(url, { perMessageDeflate: false, ...opts });
    const raw = new RawSigner(ws, onFrame);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return raw;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  hello(pk: Uint8Array, proof: Uint8Array): void {
    this.send({ v: 1, type: 'hello', publicKey: bytesToHex(pk), proof: bytesToHex(proof) });
  }

  async waitClosed(ms = 5_000): Promise<{ code: number; reason: string }> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.closed,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`raw signer not closed within ${ms} ms`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
    return { code: this.closeCode!, reason: this.closeReason };
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.ws.terminate();
    return this.closed;
  }
}

/** The honest proof for a challenge. */
export function proof(sk: SecretKey, challenge: Uint8Array): Uint8Array {
  return bls.signWithDst(sk, authMessage(challenge), PEER_AUTH_DST).bytes;
}

/** A listening raw-signer endpoint for the pool to dial: each accepted socket becomes a RawSigner. */
export async function rawSignerServer(
  closer: Closer,
  onConnection: (raw: RawSigner, req: IncomingMessage) => void,
  onFrame?: (f: Record<string, unknown>, raw: RawSigner) => void,
  opts: { autoPong?: boolean } = {},
): Promise<{ url: string; wss: WebSocketServer }> {
  const { server, port } = await httpServer(closer);
  const wss = new WebSocketServer({ server, perMessageDeflate: false, ...(opts.autoPong === false ? { autoPong: false } : {}) });
  wss.on('connection', (ws, req) => {
    const raw = new RawSigner(ws, onFrame);
    closer.add(raw, (r) => r.close());
    onConnection(raw, req);
  });
  closer.add(wss, (w) => void w.close());
  return { url: `ws://127.0.0.1:${port}`, wss };
}

/** Answers every challenge honestly with `sk`. */
export function honestHello(sk: SecretKey): (f: Record<string, unknown>, raw: RawSigner) => void {
  const pk = bls.publicKeyOf(sk).bytes;
  return (frame, raw) => {
    if (frame.type === 'challenge') raw.hello(pk, proof(sk, hexToBytes(frame.challenge as string)));
  };
}
