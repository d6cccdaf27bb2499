// One authenticated TLS connection to an avalanchego peer (either side: avalanchego's peer
// protocol is symmetric). It sends our Handshake first, checks the peer's (handshake.ts),
// answers it with a PeerList, and counts as connected once the peer's PeerList has arrived too
// (network/peer/peer.go handlePeerList). Afterwards: exactly one empty Pong per Ping, our own
// Pings, ACP-118 requests multiplexed by odd request ID with per-request deadlines, all timing
// on one timer per connection. Misbehaviour closes the connection with a fault.
import type { TLSSocket } from 'node:tls';
import type { PublicKey } from '../bls/index.js';
import { bytesToHex } from '../warp/hex.js';
import type { AppRequest, ClaimedIpPort, Handshake } from './gen/p2p/p2p_pb.js';
import { abortedBy, HandshakeRefusedError, P2PProtocolError, P2PRequestError, type CloseReason, type DropKind, type PeerFault } from './errors.js';
import type { RequestFailure } from '../util/request-failure.js';
import { askAsPromise, failedAsk, type AskDone, type AskTicket } from '../util/ask.js';
import { PendingRequest } from './pending-request.js';
import { encodeFrame, FrameDecoder } from './frames.js';
import { decodeMessage, encodeMessage, type MessageBody } from './messages.js';
import { buildHandshake, checkPeerHandshake, type PeerHandshake, type SignedIp } from './handshake.js';
import { APP_ERROR, appErrorAnswer, appRequestFrame, decodeSignatureResponse, signatureAppRequest } from './acp118.js';
import { OutstandingRequests } from './outstanding.js';
import { emptyKnownPeers } from './bloom.js';
import { ourHandshake } from './local-side.js';
import { formatVersion } from './version.js';
import { MAX_CLOCK_DIFFERENCE_S, MAX_INBOUND_TIMEOUT_MS } from './constants.js';
import type { ConnectionLimits, DiscoveredPeer, InboundAppRequest, LocalSide, P2PAnswer, SignatureRequestInput } from './connection-types.js';
import { getPeerListFault, readPeerList } from './peer-list.js';
import { cutPeerText } from '../util/peer-text.js';
import type { StakingCertificate } from './staking-certificate.js';

export { type CloseReason } from './errors.js';

export interface ConnectionHooks {
  validatorBlsKey?(nodeId: string): PublicKey | undefined;
  /** What to gossip to this peer (its Handshake, when accepted, says which subnets it tracks). */
  peerList?(conn: P2PConnection): readonly ClaimedIpPort[];
  wantsPeer?(nodeId: string): boolean;
  onReady?(conn: P2PConnection): void;
  onClosed?(conn: P2PConnection, reason: CloseReason): void;
  onAppRequest?(conn: P2PConnection, req: InboundAppRequest): void;
  onDiscovered?(conn: P2PConnection, peers: DiscoveredPeer[]): void;
  /** Something an honest slow node does was dropped (not a fault). */
  onDropped?(conn: P2PConnection, kind: DropKind, detail: string): void;
}

/** Handshake fields whose failure is an incompatibility (back off), not misbehaviour (penalise). */
const INCOMPATIBLE_FIELDS = new Set(['networkID', 'myTime', 'version']);

export class P2PConnection {
  readonly nodeId: string;
  private readonly decoder: FrameDecoder;
  private readonly pending = new OutstandingRequests();
  private state: 'handshaking' | 'ready' | 'closed' = 'handshaking';
  private gotHandshake = false;
  private peerInfo: PeerHandshake | undefined;
  /** The peer's clock minus ours (s), from its Handshake, accepted or not. */
  private peerClockOffsetS: number | undefined;
  /** Pings sent and not yet answered: Pongs up to this many are expected. */
  private pingsUnanswered = 0;
  private lastReceived: number;
  private readonly startedAt: number;
  private nextPingAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private windowStart = 0;
  private windowCount = 0;
  private closeReason: CloseReason | undefined;
  /** Messages received by kind (after decompression), and how many came compressed. */
  readonly received = new Map<string, number>();
  receivedCompressed = 0;

  constructor(
    private readonly socket: TLSSocket,
    readonly peerCertificate: StakingCertificate,
    private readonly local: LocalSide,
    private readonly limits: ConnectionLimits,
    private readonly hooks: ConnectionHooks,
  ) {
    this.nodeId = peerCertificate.nodeId;
    this.decoder = new FrameDecoder(limits.maxMessageBytes);
    this.startedAt = this.lastReceived = Date.now();
  }

  get isReady(): boolean {
    return this.state === 'ready';
  }

  get isClosed(): boolean {
    return this.state === 'closed';
  }

  get outstandingCount(): number {
    return this.pending.size;
  }

  /** What the peer said in its Handshake (after it was accepted). */
  get peer(): PeerHandshake | undefined {
    return this.peerInfo;
  }

  get closedBecause(): CloseReason | undefined {
    return this.closeReason;
  }

  start(): void {
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err) => this.close({ kind: 'remote', detail: `socket error: ${err.message}` }));
    this.socket.on('close', () => this.close({ kind: 'remote', detail: 'the peer closed the connection' }));
    this.socket.on('end', () => this.close({ kind: 'remote', detail: 'the peer ended the connection' }));
    this.send({ case: 'handshake', value: buildHandshake(ourHandshake(this.local)) });
    this.reschedule();
  }

  /** Asks the peer to sign; rejects with P2PRequestError. */
  request(req: SignatureRequestInput, timeoutMs: number, signal?: AbortSignal): Promise<P2PAnswer> {
    if (this.state === 'ready' && signal?.aborted) return Promise.reject(abortedBy(signal, this.nodeId));
    return askAsPromise<P2PAnswer>((done) => this.enqueue(req, timeoutMs, true, done), { signal, aborted: () => abortedBy(signal!, this.nodeId) });
  }

  /**
   * request() in the callback form the aggregator uses (aggregator/peer-source.ts): no Promise,
   * abort listener or timer of its own; the caller cancels the ticket at its deadline.
   */
  ask(req: SignatureRequestInput, timeoutMs: number, done: AskDone<P2PAnswer>): AskTicket {
    return this.enqueue(req, timeoutMs, false, done);
  }

  /** The caller stopped waiting: the request leaves, and a late answer to it is not a fault. */
  forget(p: PendingRequest): void {
    this.pending.forget(p);
  }

  private enqueue(req: SignatureRequestInput, timeoutMs: number, timedHere: boolean, done: AskDone<P2PAnswer>): AskTicket {
    if (this.state === 'closed') return failedAsk(new P2PRequestError('disconnected', this.nodeId, 'the connection is closed'), done);
    if (this.state !== 'ready') return failedAsk(new P2PRequestError('not-connected', this.nodeId, 'the handshake is not finished'), done);
    if (this.pending.size >= this.limits.maxOutstandingRequests) {
      return failedAsk(new P2PRequestError('overloaded', this.nodeId, `${this.pending.size} requests are already outstanding`), done);
    }
    const requestId = this.pending.nextId();
    // The node would cap a longer deadline (message/messages.go); ours still runs its full length.
    const wireMs = Math.min(timeoutMs, MAX_INBOUND_TIMEOUT_MS);
    let frame: Uint8Array;
    try {
      frame = this.local.compressOutbound
        ? encodeFrame(encodeMessage(signatureAppRequest(req, requestId, wireMs), { compress: true }), this.limits.maxMessageBytes)
        : appRequestFrame(req, requestId, wireMs, this.limits.maxMessageBytes);
    } catch (err) {
      return failedAsk(new P2PRequestError('protocol', this.nodeId, `cannot frame the request: ${(err as Error).message}`), done);
    }
    // Not written (the peer has not read its backlog): fails at once, and no ID is spent.
    if (!this.write(frame)) return failedAsk(new P2PRequestError('overloaded', this.nodeId, 'the peer has not read what was sent to it'), done);
    const p = new PendingRequest(this, requestId, req.chainId, Date.now() + timeoutMs, timedHere, done);
    this.pending.add(p);
    if (timedHere && p.deadline < this.timerAt) this.reschedule();
    return p;
  }

  sendAppResponse(chainId: Uint8Array, requestId: number, appBytes: Uint8Array): void {
    this.send({ case: 'appResponse', value: { $typeName: 'p2p.AppResponse', chainId, requestId, appBytes } });
  }

  sendAppError(chainId: Uint8Array, requestId: number, errorCode: number, errorMessage: string): void {
    this.send({ case: 'appError', value: { $typeName: 'p2p.AppError', chainId, requestId, errorCode, errorMessage } });
  }

  /** Asks the peer for validator IPs we do not know (an empty known-peers filter: all of them). */
  requestPeerList(allSubnets = this.local.allSubnets): void {
    if (this.state !== 'ready') return;
    const known = emptyKnownPeers();
    this.send({ case: 'getPeerList', value: { $typeName: 'p2p.GetPeerList', knownPeers: { $typeName: 'p2p.BloomFilter', filter: known.filter, salt: known.salt }, allSubnets } });
  }

  /** Sends any message as it is (no bookkeeping): for the simulated node's and tests' own traffic. */
  sendMessage(body: MessageBody, compress = this.local.compressOutbound): void {
    this.send(body, compress);
  }

  close(reason: CloseReason, failure: RequestFailure = 'disconnected'): void {
    if (this.state === 'closed') return;
    if (reason.kind === 'remote' && this.state === 'handshaking') {
      const ourVersion = formatVersion(this.local.version);
      reason = { ...reason, afterOurHandshake: { ourVersion, peerVersion: this.peerInfo && formatVersion(this.peerInfo.version), clockOffsetS: this.peerClockOffsetS } };
    }
    this.state = 'closed';
    reason = { ...reason, detail: cutPeerText(reason.detail) }; // it may quote the peer, and is logged
    this.closeReason = reason;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.socket.destroy();
    for (const p of this.pending.takeAll()) p.done(new P2PRequestError(failure, this.nodeId, `connection closed: ${reason.detail}`), undefined);
    this.hooks.onClosed?.(this, reason);
  }

  private fault(fault: PeerFault, detail: string): void {
    this.close({ kind: 'fault', fault, detail });
  }

  private send(body: MessageBody, compress = this.local.compressOutbound): void {
    if (this.state === 'closed') return;
    this.write(encodeFrame(encodeMessage(body, { compress }), this.limits.maxMessageBytes));
  }

  /**
   * False when not written: a peer that has not read the last maxWriteBufferBytes is busy, not
   * hostile, and avalanchego drops what its send queue cannot take (network/peer/message_queue.go)
   * without closing; the silence timeout still ends a peer that stopped altogether.
   */
  private write(frame: Uint8Array): boolean {
    if (this.state === 'closed') return false;
    if (this.socket.writableLength > this.limits.maxWriteBufferBytes) {
      this.hooks.onDropped?.(this, 'write-backlog', `the peer left ${this.socket.writableLength} bytes unread`);
      return false;
    }
    this.socket.write(frame);
    return true;
  }

  private onData(chunk: Buffer): void {
    if (this.state === 'closed') return;
    for (const frame of this.decoder.push(chunk)) {
      if (this.isClosed) return;
      this.onFrame(frame);
    }
    if (this.decoder.error && !this.isClosed) this.fault('oversized-frame', this.decoder.error.message);
  }

  private onFrame(frame: Uint8Array): void {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    if (++this.windowCount > this.limits.maxMessagesPerSecond) {
      this.fault('flood', `more than ${this.limits.maxMessagesPerSecond} messages in a second`);
      return;
    }
    let decoded;
    try {
      decoded = decodeMessage(frame, this.limits.maxMessageBytes);
    } catch (err) {
      if (this.local.onUnparseable === 'ignore') return;
      const e = err as P2PProtocolError;
      this.fault(e.fault ?? 'unparseable-message', e.message);
      return;
    }
    this.lastReceived = now;
    const kind = decoded.kind === 'unknown' ? 'unknown' : decoded.body.case;
    this.received.set(kind, (this.received.get(kind) ?? 0) + 1);
    if (decoded.kind === 'unknown') return;
    if (decoded.compressed) this.receivedCompressed++;
    this.handle(decoded.body);
  }

  private handle(m: MessageBody): void {
    switch (m.case) {
      case 'ping':
        if (m.value.uptime > 100) return this.fault('bad-ping', `ping uptime ${m.value.uptime} > 100`);
        this.send({ case: 'pong', value: { $typeName: 'p2p.Pong' } });
        return;
      case 'pong':
        // Pongs queued behind a stall can outnumber the Pings outstanding: dropped, not punished (local.onUnrequestedPong).
        if (this.pingsUnanswered > 0) return void (this.pingsUnanswered = this.local.onUnrequestedPong === 'disconnect' ? 0 : this.pingsUnanswered - 1);
        if (this.local.onUnrequestedPong === 'disconnect') return this.fault('unrequested-pong', 'a Pong that answers no Ping');
        return this.hooks.onDropped?.(this, 'surplus-pong', 'a Pong that answers no Ping');
      case 'handshake':
        return this.onHandshake(m.value);
      case 'peerList':
        return this.onPeerList(m.value.claimedIpPorts);
      case 'getPeerList': {
        if (this.state !== 'ready') return;
        const refused = getPeerListFault(m.value.knownPeers);
        if (refused !== undefined) return this.fault('bad-get-peer-list', refused);
        const list = this.hooks.peerList?.(this) ?? [];
        if (list.length > 0) this.send({ case: 'peerList', value: { $typeName: 'p2p.PeerList', claimedIpPorts: [...list] } });
        return;
      }
      case 'appRequest':
        if (this.state !== 'ready') return;
        // No handler on this side (warpgate serves nothing): answered at once with the AppError
        // avalanchego's p2p router sends for a handler it lacks (network/p2p/router.go), so a
        // node asking us (state sync and the like) does not wait out its timeout.
        if (!this.hooks.onAppRequest) return this.sendAppError(m.value.chainId, m.value.requestId, APP_ERROR.unregisteredHandler, 'unregistered handler');
        this.hooks.onAppRequest(this, { chainId: m.value.chainId, requestId: m.value.requestId, deadlineNs: m.value.deadline, appBytes: m.value.appBytes });
        return;
      case 'appResponse':
        return this.settle(m.value.chainId, m.value.requestId, (p) => {
          let signature: Uint8Array;
          try {
            signature = decodeSignatureResponse(m.value.appBytes);
          } catch (err) {
            return this.badResponse(p, `the AppResponse is not a SignatureResponse (${(err as Error).message})`);
          }
          if (signature.length !== 96) return this.badResponse(p, `a ${signature.length}-byte signature (expected 96)`);
          p.done(undefined, { kind: 'signature', signature });
        });
      case 'appError':
        return this.settle(m.value.chainId, m.value.requestId, (p) => p.done(undefined, appErrorAnswer(m.value)));
      default:
        // AppGossip and the rest: not used by warpgate.
        return;
    }
  }

  private badResponse(p: PendingRequest, detail: string): void {
    p.done(new P2PRequestError('protocol', this.nodeId, detail), undefined);
    this.fault('bad-response', detail);
  }

  private settle(chainId: Uint8Array, requestId: number, then: (p: PendingRequest) => void): void {
    if (this.state !== 'ready') return;
    const match = this.pending.match(requestId, chainId);
    if (match.kind === 'pending') return then(match.request);
    const what = `an answer to request ${requestId} on chain ${bytesToHex(chainId).slice(0, 16)}…`;
    if (match.kind === 'late') this.hooks.onDropped?.(this, 'late-answer', `${what} given up on`);
    else if (this.local.onUnrequestedResponse === 'disconnect') this.fault('unrequested-response', `${what} that was never made`);
  }

  private onHandshake(hs: Handshake): void {
    if (this.gotHandshake) return this.fault('second-handshake', 'a second Handshake');
    this.peerClockOffsetS = Number(hs.myTime) - Math.floor(this.local.now() / 1000);
    try {
      this.peerInfo = checkPeerHandshake(hs, {
        networkId: this.local.networkId,
        nowSeconds: this.local.now() / 1000,
        maxClockDifferenceS: this.local.maxClockDifferenceS,
        current: this.local.version,
        minCompatible: this.local.minCompatible,
        currentAcps: this.local.currentAcps,
        peerCertificate: this.peerCertificate,
        bls: this.local.bls,
        validatorBlsKey: this.hooks.validatorBlsKey?.(this.nodeId),
      });
    } catch (err) {
      const e = err as HandshakeRefusedError;
      if (e instanceof HandshakeRefusedError && INCOMPATIBLE_FIELDS.has(e.field)) this.close({ kind: 'refused', detail: e.message });
      else this.fault('bad-handshake', e.message);
      return;
    }
    this.gotHandshake = true;
    this.send({ case: 'peerList', value: { $typeName: 'p2p.PeerList', claimedIpPorts: [...(this.hooks.peerList?.(this) ?? [])] } });
  }

  private onPeerList(entries: ClaimedIpPort[]): void {
    if (this.state !== 'ready') {
      if (!this.gotHandshake) return;
      this.state = 'ready';
      this.nextPingAt = Date.now() + this.limits.pingIntervalMs;
      this.reschedule();
      this.hooks.onReady?.(this);
      if (this.isClosed) return;
    }
    const read = readPeerList(entries, {
      maxEntries: this.limits.maxClaimedIpsPerPeerList,
      maxTimestamp: BigInt(Math.floor(this.local.now() / 1000 + (this.local.maxClockDifferenceS ?? MAX_CLOCK_DIFFERENCE_S))),
      wantsPeer: (nodeId) => this.hooks.wantsPeer?.(nodeId) ?? false,
    });
    if ('fault' in read) return this.fault('bad-peer-list', read.fault);
    const discovered = read.discovered;
    if (discovered.length > 0) this.hooks.onDiscovered?.(this, discovered);
  }

  /**
   * The one timer: handshake deadline, silence, pings and the deadlines of requests timed here
   * (those of ask(), timed by their caller, are swept up whenever it runs).
   */
  private reschedule(): void {
    if (this.state === 'closed') return;
    let at = this.lastReceived + this.limits.silenceTimeoutMs;
    if (this.state === 'handshaking') at = Math.min(at, this.startedAt + this.limits.handshakeTimeoutMs);
    else at = Math.min(at, this.nextPingAt);
    for (const p of this.pending.values()) if (p.timedHere) at = Math.min(at, p.deadline);
    if (this.timer && at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.tick(), Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.state === 'closed') return;
    const now = Date.now();
    if (this.state === 'handshaking' && now >= this.startedAt + this.limits.handshakeTimeoutMs) {
      this.close({ kind: 'timeout', detail: `no Handshake and PeerList within ${this.limits.handshakeTimeoutMs} ms` });
      return;
    }
    if (now >= this.lastReceived + this.limits.silenceTimeoutMs) {
      this.close({ kind: 'timeout', detail: `nothing received for ${this.limits.silenceTimeoutMs} ms` });
      return;
    }
    for (const p of this.pending.takeExpired(now)) p.done(new P2PRequestError('timeout', this.nodeId, 'no answer before the deadline'), undefined);
    // On a timer, answered or not, as avalanchego's sendNetworkMessages does: waiting for a Pong
    // first, one lost Pong would end our pings and the node would drop the idle connection.
    if (this.state === 'ready' && now >= this.nextPingAt) {
      this.nextPingAt = now + this.limits.pingIntervalMs;
      this.send({ case: 'ping', value: { $typeName: 'p2p.Ping', uptime: 0 } });
      this.pingsUnanswered++;
    }
    this.reschedule();
  }
}
