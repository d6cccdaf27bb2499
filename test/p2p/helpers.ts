// Shared by the p2p tests: simulated avalanchego nodes and networks on 127.0.0.1:0 with short
// timers, a hand-driven "raw" node for adversarial cases, warp messages, and waits with
// generous deadlines. Everything opened is closed by closeAll() in afterEach.
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { loadBackend, type BlsBackend } from '../../src/bls/index.js';
import {
  P2PNetwork,
  ephemeralStakingIdentity,
  initCompression,
  makeLocalSide,
  peerCertificateOf,
  tlsServerOptions,
  type P2PDialError,
  type P2PNetworkOptions,
  type StakingIdentity,
  type LocalSide,
} from '../../src/p2p/index.js';
import { buildHandshake } from '../../src/p2p/handshake.js';
import { encodeFrame, FrameDecoder } from '../../src/p2p/frames.js';
import { decodeMessage, encodeMessage, type MessageBody } from '../../src/p2p/messages.js';
import { emptyKnownPeers } from '../../src/p2p/bloom.js';
import { MAX_MESSAGE_BYTES } from '../../src/p2p/constants.js';
import type { Handshake } from '../../src/p2p/gen/p2p/p2p_pb.js';
import { SimulatedAvalancheNode, type SimulatedNodeOptions } from '../../src/devnet/avalanchego-node/node.js';
import { encodeAddressedCall, encodeHashPayload, newUnsignedMessage, type UnsignedMessage } from '../../src/warp/index.js';

export const bls: BlsBackend = loadBackend();
export const NETWORK_ID = 12345;
export const EVM_CHAIN = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
export const P_CHAIN = new Uint8Array(32);

const closers: (() => Promise<void> | void)[] = [];

export async function closeAll(): Promise<void> {
  for (const c of closers.splice(0).reverse()) await c();
}

export function hashMessage(seed: number, opts: { networkId?: number; chain?: Uint8Array } = {}): UnsignedMessage {
  return newUnsignedMessage(opts.networkId ?? NETWORK_ID, opts.chain ?? EVM_CHAIN, encodeHashPayload(Uint8Array.from({ length: 32 }, (_, i) => (seed + i) & 0xff)));
}

export function addressedCallMessage(payload: Uint8Array, opts: { networkId?: number; chain?: Uint8Array; source?: Uint8Array } = {}): UnsignedMessage {
  return newUnsignedMessage(opts.networkId ?? NETWORK_ID, opts.chain ?? EVM_CHAIN, encodeAddressedCall(opts.source ?? new Uint8Array(), payload));
}

export function verifies(pk: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  try {
    return bls.verify(bls.publicKeyFromBytes(pk), msg, bls.signatureFromBytes(sig));
  } catch {
    return false;
  }
}

export const FAST_LIMITS = { handshakeTimeoutMs: 5_000, pingIntervalMs: 60_000, silenceTimeoutMs: 60_000 };

export async function startNode(opts: Partial<SimulatedNodeOptions> = {}): Promise<SimulatedAvalancheNode> {
  const node = new SimulatedAvalancheNode({ networkId: NETWORK_ID, chains: [{ kind: 'evm', chainId: EVM_CHAIN }], bls, ...opts, limits: { ...FAST_LIMITS, ...opts.limits } });
  await node.start();
  closers.push(() => node.close());
  return node;
}

export async function startNetwork(opts: Partial<P2PNetworkOptions> = {}): Promise<P2PNetwork> {
  const net = new P2PNetwork({ networkId: NETWORK_ID, bls, requestTimeoutMs: 10_000, connectTimeoutMs: 5_000, ...opts, limits: { ...FAST_LIMITS, ...opts.limits } });
  await net.start();
  closers.push(() => net.close());
  return net;
}

export function targetOf(node: SimulatedAvalancheNode): { nodeId: string; host: string; port: number } {
  return { nodeId: node.nodeId, ...node.address };
}

/** Resolves when `check` is true, polling; rejects after `ms` (a generous deadline, not a timing assertion). */
export async function waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function once<T extends unknown[]>(emitter: { once(event: string, fn: (...args: T) => void): unknown }, event: string, ms = 15_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for '${event}'`)), ms);
    emitter.once(event, (...args: T) => {
      clearTimeout(timer);
      resolve(args);
    });
  });
}

/**
 * The next dial failure `net` reports (NodeID and error) once `act` has run; the listener is on
 * before `act`, so a failure `act` causes at once is not missed.
 */
export function nextDialFailure(net: { once(event: string, fn: (...args: [string, P2PDialError]) => void): unknown }, act: () => void): Promise<[string, P2PDialError]> {
  const failed = once<[string, P2PDialError]>(net, 'dialFailed');
  act();
  return failed;
}

/** A peer driven by hand: a TLS listener with its own identity that hands each socket to `script`. */
export interface RawPeer {
  identity: StakingIdentity;
  nodeId: string;
  host: string;
  port: number;
  local: LocalSide;
}

export interface RawSession {
  socket: TLSSocket;
  /** Messages the other side sent, decoded, in order. */
  received: MessageBody[];
  send(body: MessageBody, compress?: boolean): void;
  /** A valid Handshake for this peer, to send as is or altered. */
  handshake(): Handshake;
  /** Sends our Handshake and an empty PeerList: afterwards the other side counts us connected. */
  completeHandshake(): void;
  next(kind: string, ms?: number): Promise<MessageBody>;
}

export async function startRawPeer(script: (s: RawSession) => void, opts: { networkId?: number; identity?: StakingIdentity } = {}): Promise<RawPeer> {
  await initCompression();
  const identity = opts.identity ?? ephemeralStakingIdentity();
  let local: LocalSide | undefined;
  const server: Server = createServer(tlsServerOptions(identity), (socket) => {
    peerCertificateOf(socket);
    const decoder = new FrameDecoder(MAX_MESSAGE_BYTES);
    const received: MessageBody[] = [];
    const waiters: { kind: string; resolve: (m: MessageBody) => void }[] = [];
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      let frames: Uint8Array[] = [];
      try {
        frames = decoder.push(chunk);
      } catch {
        socket.destroy();
      }
      for (const f of frames) {
        const d = decodeMessage(f, MAX_MESSAGE_BYTES);
        if (d.kind !== 'message') continue;
        received.push(d.body);
        const i = waiters.findIndex((w) => w.kind === d.body.case);
        if (i >= 0) waiters.splice(i, 1)[0]!.resolve(d.body);
      }
    });
    const session: RawSession = {
      socket,
      received,
      send: (body, compress = false) => socket.write(encodeFrame(encodeMessage(body, { compress }), Number.MAX_SAFE_INTEGER)),
      handshake: () =>
        buildHandshake({
          networkId: local!.networkId,
          nowSeconds: Date.now() / 1000,
          signedIp: local!.signedIp,
          version: local!.version,
          upgradeTimeSeconds: 0,
          trackedSubnets: [],
          supportedAcps: [],
          objectedAcps: [],
          knownPeers: emptyKnownPeers(),
          allSubnets: false,
        }),
      completeHandshake: () => {
        session.send({ case: 'handshake', value: session.handshake() });
        session.send({ case: 'peerList', value: { $typeName: 'p2p.PeerList', claimedIpPorts: [] } });
      },
      next: (kind, ms = 15_000) => {
        const seen = received.find((m) => m.case === kind);
        if (seen) {
          received.splice(received.indexOf(seen), 1);
          return Promise.resolve(seen);
        }
        return new Promise((resolve, reject) => {
          const t = setTimeout(() => reject(new Error(`raw peer: no ${kind} arrived`)), ms);
          waiters.push({ kind, resolve: (m) => (clearTimeout(t), received.splice(received.indexOf(m), 1), resolve(m)) });
        });
      },
    };
    script(session);
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  local = makeLocalSide({ networkId: opts.networkId ?? NETWORK_ID, identity, bls, publicHost: '127.0.0.1', publicPort: port });
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return { identity, nodeId: identity.nodeId, host: '127.0.0.1', port, local };
}
