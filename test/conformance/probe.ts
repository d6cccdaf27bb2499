// A hand-driven client of avalanchego's peer protocol for the conformance cases: it dials a node
// over TLS with a fresh staking identity, sends a Handshake (altered when a case asks), an empty
// PeerList, raw frames or AppRequests, and reports what the node did: answered (AppResponse or
// AppError), stayed silent until a deadline, or closed the connection. It answers Pings (a node
// closes a peer that sends a Pong it did not ask for) and never pings itself.
import type { TLSSocket } from 'node:tls';
import { loadBackend } from '../../src/bls/index.js';
import { dialPeer, ephemeralStakingIdentity, initCompression, makeLocalSide, type StakingIdentity } from '../../src/p2p/index.js';
import { buildHandshake } from '../../src/p2p/handshake.js';
import { ourHandshake } from '../../src/p2p/local-side.js';
import { encodeFrame, FrameDecoder } from '../../src/p2p/frames.js';
import { decodeMessage, encodeMessage, type MessageBody } from '../../src/p2p/messages.js';
import { decodeSignatureResponse, encodeSignatureRequestAppBytes } from '../../src/p2p/acp118.js';
import { MAX_MESSAGE_BYTES } from '../../src/p2p/constants.js';
import type { Handshake } from '../../src/p2p/gen/p2p/p2p_pb.js';

const bls = loadBackend();

export interface ProbeTarget {
  nodeId: string;
  host: string;
  port: number;
  networkId: number;
}

/** What a node did with a request: a signature (checked), an AppError code, nothing, or a close. */
export type Outcome = 'signature' | 'bad-signature' | 'silence' | 'closed' | `app-error ${number}`;

/** What a node did with a Handshake: answered it with its PeerList, or closed. */
export type HandshakeOutcome = 'accepted' | 'closed' | 'silence';

type Answer = { kind: 'response'; appBytes: Uint8Array } | { kind: 'error'; code: number };

export class Probe {
  private readonly decoder = new FrameDecoder(MAX_MESSAGE_BYTES);
  private readonly answers = new Map<number, Answer>();
  private gotPeerList = false;
  private closedFlag = false;
  private readonly wakers = new Set<() => void>();

  private constructor(
    private readonly socket: TLSSocket,
    readonly identity: StakingIdentity,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => this.markClosed());
    socket.on('end', () => this.markClosed());
  }

  /** Dials `target` with a fresh identity (or the one given); nothing is sent yet. */
  static async dial(target: ProbeTarget, identity: StakingIdentity = ephemeralStakingIdentity()): Promise<Probe> {
    await initCompression();
    const { socket } = await dialPeer({ host: target.host, port: target.port, expectedNodeId: target.nodeId }, identity, 15_000);
    return new Probe(socket, identity);
  }

  /**
   * A Handshake for this probe's identity, valid for `networkId` unless `alter` changes it (the
   * IP is signed with the probe's TLS key and a throwaway BLS key, as a non-validator's is).
   */
  handshake(networkId: number, alter?: (h: Handshake) => void, nowMs = Date.now()): Handshake {
    const local = makeLocalSide({ networkId, identity: this.identity, bls, publicHost: '127.0.0.1', publicPort: 9651, now: () => nowMs });
    const h = buildHandshake(ourHandshake(local));
    alter?.(h);
    return h;
  }

  send(body: MessageBody, compress = false): void {
    if (this.closedFlag) return;
    this.socket.write(encodeFrame(encodeMessage(body, { compress }), Number.MAX_SAFE_INTEGER));
  }

  /** Writes bytes as they are: a frame of our own making, or not a frame at all. */
  sendRaw(bytes: Uint8Array): void {
    if (!this.closedFlag) this.socket.write(bytes);
  }

  /** Our Handshake, then an empty PeerList (after which a node counts us connected). */
  introduce(handshake: Handshake): void {
    this.send({ case: 'handshake', value: handshake });
    this.send({ case: 'peerList', value: { $typeName: 'p2p.PeerList', claimedIpPorts: [] } });
  }

  /** Whether the node answered our Handshake with its PeerList within `ms`, or closed. */
  async handshakeOutcome(ms: number): Promise<HandshakeOutcome> {
    await this.until(() => this.gotPeerList || this.closedFlag, ms);
    // A node that refuses closes right after its own Handshake; a PeerList never comes then.
    if (this.gotPeerList) return 'accepted';
    return this.closedFlag ? 'closed' : 'silence';
  }

  /** Sends an ACP-118 AppRequest (deadline in ms; 0 sends an expired one). */
  requestSignature(chainId: Uint8Array, requestId: number, message: Uint8Array, justification: Uint8Array, deadlineMs = 10_000): void {
    const appBytes = encodeSignatureRequestAppBytes(message, justification);
    this.send({ case: 'appRequest', value: { $typeName: 'p2p.AppRequest', chainId, requestId, deadline: BigInt(deadlineMs) * 1_000_000n, appBytes } });
  }

  /** Sends an AppRequest with these app bytes as they are. */
  requestRaw(chainId: Uint8Array, requestId: number, appBytes: Uint8Array, deadlineMs = 10_000): void {
    this.send({ case: 'appRequest', value: { $typeName: 'p2p.AppRequest', chainId, requestId, deadline: BigInt(deadlineMs) * 1_000_000n, appBytes } });
  }

  /**
   * What became of request `requestId` within `ms`: its answer, the connection closed, or
   * silence. A signature counts only if it verifies under `blsPublicKey` over `message`.
   */
  async outcome(requestId: number, ms: number, check?: { blsPublicKey: Uint8Array; message: Uint8Array }): Promise<Outcome> {
    await this.until(() => this.answers.has(requestId) || this.closedFlag, ms);
    const answer = this.answers.get(requestId);
    if (!answer) return this.closedFlag ? 'closed' : 'silence';
    if (answer.kind === 'error') return `app-error ${answer.code}`;
    if (!check) return 'signature';
    try {
      const signature = decodeSignatureResponse(answer.appBytes);
      return bls.verify(bls.publicKeyFromBytes(check.blsPublicKey), check.message, bls.signatureFromBytes(signature)) ? 'signature' : 'bad-signature';
    } catch {
      return 'bad-signature';
    }
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  close(): void {
    this.socket.destroy();
    this.markClosed();
  }

  private markClosed(): void {
    this.closedFlag = true;
    this.wake();
  }

  private onData(chunk: Buffer): void {
    for (const frame of this.decoder.push(chunk)) {
      let decoded;
      try {
        decoded = decodeMessage(frame, MAX_MESSAGE_BYTES);
      } catch {
        continue;
      }
      if (decoded.kind !== 'message') continue;
      const m = decoded.body;
      if (m.case === 'ping') this.send({ case: 'pong', value: { $typeName: 'p2p.Pong' } });
      else if (m.case === 'peerList') this.gotPeerList = true;
      else if (m.case === 'appResponse') this.answers.set(m.value.requestId, { kind: 'response', appBytes: m.value.appBytes });
      else if (m.case === 'appError') this.answers.set(m.value.requestId, { kind: 'error', code: m.value.errorCode });
    }
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }

  private until(done: () => boolean, ms: number): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.wakers.delete(check);
        resolve();
      };
      const check = (): void => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, ms);
      this.wakers.add(check);
    });
  }
}
