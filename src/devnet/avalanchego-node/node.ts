// A simulated avalanchego node for the devnet and tests: a TLS listener with its own staking
// certificate speaking avalanchego's peer protocol through src/p2p (so it checks a Handshake
// exactly as handleHandshake does, refusing wrong networks, clock skew, bad IP signatures and
// old versions), answering ACP-118 requests as a node's router and acp118 handler do, and
// sending PeerList and App* zstd-compressed (avalanchego's default). Behaviour that differs
// from warpgate's own side is avalanchego's: unparseable messages are skipped, not punished;
// an AppRequest for a chain it does not track, or with an expired deadline, is dropped without
// an answer; on an EVM chain an even request ID goes to the legacy handler and is never
// answered; a second connection from a connected NodeID is dropped; a Pong that answers no
// Ping closes the connection, and a burst of messages or an answer to no request does not.
// test/interop's conformance suite holds these answers to a real node's. A devnet's byzantine
// validator misbehaves when it would sign (`fault`, the signer's fault modes): it answers a bad
// signature, garbage instead of a SignatureResponse, nothing, or drops the connection.
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { loadBackend, type BlsBackend, type PublicKey, type SecretKey } from '../../bls/index.js';
import { parseUnsignedMessage, type UnsignedMessage } from '../../warp/index.js';
import { bytesEqual, bytesToHex, concatBytes } from '../../warp/hex.js';
import {
  APP_ERROR,
  claimedIpPort,
  decodeSignatureRequest,
  decodeUvarint,
  DEFAULT_P2P_LIMITS,
  encodeSignatureResponse,
  ephemeralStakingIdentity,
  initCompression,
  makeLocalSide,
  MAINNET_MIN_COMPATIBLE,
  P2PConnection,
  peerCertificateOf,
  SIGNATURE_REQUEST_HANDLER_ID,
  tlsServerOptions,
  type ClientVersion,
  type ConnectionLimits,
  type InboundAppRequest,
  type LocalSide,
  type StakingIdentity,
  type ClaimedIpPort,
  type PeerHandshake,
} from '../../p2p/index.js';

import type { FaultMode } from '../../signer/faults.js';
import { evmWarpVerifier, type WarpVerifier } from './warp-verifiers.js';

type SimulatedChain = { kind: 'evm'; chainId: Uint8Array } | { kind: 'pchain'; chainId: Uint8Array; verify: WarpVerifier };

export interface SimulatedNodeOptions {
  networkId: number;
  chains: SimulatedChain[];
  identity?: StakingIdentity;
  /** 32-byte BLS secret key (signer.key); random when absent. */
  blsSecretKey?: Uint8Array;
  bls?: BlsBackend;
  host?: string;
  port?: number;
  version?: ClientVersion;
  /** Peers below this are refused; avalanchego on mainnet: 1.14.0. */
  minCompatible?: ClientVersion;
  currentAcps?: ReadonlySet<number>;
  maxClockDifferenceS?: number;
  /** Shifts this node's clock (to model a skewed node). */
  clockSkewMs?: number;
  limits?: Partial<ConnectionLimits>;
  /** Registered BLS keys of validators, for checking their ip_bls_sig (shouldDisconnect). */
  validatorBlsKey?(nodeId: string): PublicKey | undefined;
  /**
   * What this node gossips in PeerList to a peer tracking `trackedSubnets` (its Handshake's, the
   * Primary Network included): avalanchego gossips the validators of the subnets the peer tracks
   * (network/network.go Peers), at most 15 (PeerListNumValidatorIPs).
   */
  peerList?(trackedSubnets: readonly Uint8Array[]): readonly ClaimedIpPort[];
  /**
   * The subnets this node tracks (avalanchego --track-subnets), claimed in its Handshake. A node
   * that validates an L1 tracks it; avalanchego's network.Send skips a peer that does not claim
   * the subnet a message is sent for, so a client such as icm-services asks none of them.
   */
  trackedSubnets?: readonly Uint8Array[];
  compress?: boolean;
  /** Byzantine: how it answers a request it would sign (devnet and tests only). */
  fault?: FaultMode;
  /**
   * EVM chains: whether the message's block is accepted (and executed) here yet; until it is, the
   * node answers AppError 4 as the SAE C-Chain's verifier does (vms/saevm/cchain/warp/verifier.go).
   */
  evmAccepted?: (message: UnsignedMessage) => boolean;
  /** The signature it answers with once it would sign; its own BLS signature unless given (the bench answers from precomputed ones, after its injected delay). */
  signWith?: (message: UnsignedMessage) => Uint8Array | Promise<Uint8Array>;
}

/** config/config.go's default peer-list-num-validator-ips: entries per PeerList. */
const PEER_LIST_NUM_VALIDATOR_IPS = 15;

interface SimulatedNodeStats {
  connections: number;
  answered: number;
  refused: number;
  dropped: number;
}

export class SimulatedAvalancheNode {
  readonly identity: StakingIdentity;
  readonly nodeId: string;
  readonly blsPublicKey: Uint8Array;
  private readonly bls: BlsBackend;
  private readonly sk: SecretKey;
  private readonly server: Server;
  private lastPort: number | undefined;
  private readonly connections = new Map<string, P2PConnection>();
  private readonly verifiers = new Map<string, { kind: 'evm' | 'pchain'; chainId: Uint8Array; verify: WarpVerifier }>();
  private readonly limits: ConnectionLimits;
  private local: LocalSide | undefined;
  private readonly counters = { answered: 0, refused: 0, dropped: 0 };

  constructor(private readonly options: SimulatedNodeOptions) {
    this.identity = options.identity ?? ephemeralStakingIdentity();
    this.nodeId = this.identity.nodeId;
    this.bls = options.bls ?? loadBackend();
    this.sk = options.blsSecretKey ? this.bls.secretKeyFromBytes(options.blsSecretKey) : this.bls.generateSecretKey();
    this.blsPublicKey = this.bls.publicKeyOf(this.sk).bytes;
    for (const c of options.chains) {
      const verify = c.kind === 'evm' ? evmWarpVerifier(c.chainId, options.networkId) : c.verify;
      this.verifiers.set(bytesToHex(c.chainId), { kind: c.kind, chainId: c.chainId, verify });
    }
    // avalanchego throttles a peer's inbound messages (network/throttling: bytes and CPU time
    // per node) and never closes a connection for how many it sends: no message-rate fault here.
    this.limits = { ...DEFAULT_P2P_LIMITS, maxMessagesPerSecond: Number.POSITIVE_INFINITY, ...options.limits };
    this.server = createServer(tlsServerOptions(this.identity), (socket) => this.accept(socket));
    this.server.on('tlsClientError', () => {});
  }

  get address(): { host: string; port: number } {
    const a = this.server.address() as AddressInfo | null;
    if (!a) throw new Error('the simulated node is not listening');
    return { host: this.options.host ?? '127.0.0.1', port: a.port };
  }

  /** Proof of possession of the BLS key (what a validator registers). */
  get blsProofOfPossession(): Uint8Array {
    return this.bls.signProofOfPossession(this.sk).bytes;
  }

  async start(): Promise<{ host: string; port: number }> {
    await initCompression();
    const host = this.options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      // Started again after close(): where it listened before, as a restarted validator keeps its address.
      this.server.listen(this.options.port ?? this.lastPort ?? 0, host, () => resolve());
    });
    this.lastPort = this.address.port;
    const skew = this.options.clockSkewMs ?? 0;
    this.local = makeLocalSide({
      networkId: this.options.networkId,
      identity: this.identity,
      bls: this.bls,
      blsSecretKey: this.sk,
      publicHost: host,
      publicPort: this.address.port,
      version: this.options.version,
      minCompatible: this.options.minCompatible ?? MAINNET_MIN_COMPATIBLE,
      currentAcps: this.options.currentAcps,
      maxClockDifferenceS: this.options.maxClockDifferenceS,
      now: () => Date.now() + skew,
      compressOutbound: this.options.compress ?? true,
      onUnparseable: 'ignore',
      onUnrequestedPong: 'disconnect',
      onUnrequestedResponse: 'drop',
      allSubnets: true,
      trackedSubnets: this.options.trackedSubnets ?? [],
    });
    return this.address;
  }

  /** This node's own PeerList entry (for other simulated nodes to gossip). */
  claimedIpPort(): ClaimedIpPort {
    if (!this.local) throw new Error('start() the simulated node first');
    return claimedIpPort(this.identity.certificate.der, this.local.signedIp);
  }

  stats(): SimulatedNodeStats {
    return { connections: this.connections.size, ...this.counters };
  }

  /** Messages this node received from a connected peer, by kind. */
  receivedFrom(nodeId: string): ReadonlyMap<string, number> {
    return this.connections.get(nodeId)?.received ?? new Map();
  }

  /** What a connected peer said in its Handshake. */
  handshakeOf(nodeId: string): PeerHandshake | undefined {
    return this.connections.get(nodeId)?.peer;
  }

  connectedNodeIds(): string[] {
    return [...this.connections.keys()];
  }

  /** Whether the handshake with this peer is done both ways (its Handshake and PeerList are in). */
  isReadyWith(nodeId: string): boolean {
    return this.connections.get(nodeId)?.isReady === true;
  }

  async close(): Promise<void> {
    for (const c of this.connections.values()) c.close({ kind: 'local', detail: 'node shutting down' });
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: TLSSocket): void {
    if (!this.local) return void socket.destroy();
    let certificate;
    try {
      certificate = peerCertificateOf(socket);
    } catch {
      socket.destroy();
      return;
    }
    // network/network.go upgrade(): dropping a connection to a peer already connected or connecting.
    if (certificate.nodeId === this.nodeId || this.connections.has(certificate.nodeId)) {
      socket.destroy();
      return;
    }
    const conn = new P2PConnection(socket, certificate, this.local, this.limits, {
      validatorBlsKey: this.options.validatorBlsKey,
      peerList: (c) => (this.options.peerList?.(c.peer?.trackedSubnets ?? []) ?? []).slice(0, PEER_LIST_NUM_VALIDATOR_IPS),
      onClosed: (c) => {
        if (this.connections.get(c.nodeId) === c) this.connections.delete(c.nodeId);
      },
      onAppRequest: (c, req) => void this.onAppRequest(c, req),
    });
    this.connections.set(certificate.nodeId, conn);
    conn.start();
  }

  private async onAppRequest(conn: P2PConnection, req: InboundAppRequest): Promise<void> {
    const chain = this.verifiers.get(bytesToHex(req.chainId));
    // snow/networking/router/chain_router.go: a message for a chain the node does not run is dropped.
    // message/messages.go: the deadline sets the expiration; a zero deadline has already expired.
    // graft/subnet-evm/network/network.go: even request IDs go to the legacy handler, which answers nothing here.
    if (!chain || req.deadlineNs === 0n || (chain.kind === 'evm' && req.requestId % 2 === 0)) {
      this.counters.dropped++;
      return;
    }
    const refuse = (code: number, message: string): void => {
      this.counters.refused++;
      conn.sendAppError(req.chainId, req.requestId, code, message);
    };
    // network/p2p/router.go: the handler ID prefix; an unparseable or unknown one is ErrUnregisteredHandler.
    const prefix = decodeUvarint(req.appBytes);
    if (!prefix || prefix.value !== BigInt(SIGNATURE_REQUEST_HANDLER_ID)) return refuse(APP_ERROR.unregisteredHandler, 'unregistered handler');
    let request;
    try {
      request = decodeSignatureRequest(req.appBytes.subarray(prefix.length));
    } catch (err) {
      return refuse(APP_ERROR.unexpected, `failed to unmarshal request: ${(err as Error).message}`);
    }
    let message;
    try {
      // vms/platformvm/warp's codec has no size cap: a payload over 24 KiB is the verifier's to refuse (code 1).
      message = parseUnsignedMessage(request.message, { maxPayloadBytes: request.message.length });
    } catch (err) {
      return refuse(APP_ERROR.unexpected, `failed to parse warp unsigned message: ${(err as Error).message}`);
    }
    if (chain.kind === 'evm' && this.options.evmAccepted?.(message) === false) return refuse(4, 'block not marked as accepted: not found');
    const verdict = await chain.verify(message, request.justification);
    if (verdict) return refuse(verdict.code, verdict.message);
    // vms/platformvm/warp/signer.go: the signer only signs for its own chain and network.
    if (!bytesEqual(message.sourceChainId, chain.chainId)) return refuse(APP_ERROR.unexpected, 'failed to sign message: wrong SourceChainID');
    if (message.networkId !== this.options.networkId) return refuse(APP_ERROR.unexpected, 'failed to sign message: wrong NetworkID');
    this.counters.answered++;
    switch (this.options.fault) {
      case 'silent':
        return;
      case 'disconnect':
        return conn.close({ kind: 'local', detail: 'byzantine: dropping the connection on a request' });
      case 'garbage':
        // Not a SignatureResponse: field 1 announced as 200 bytes long, then nothing.
        return conn.sendAppResponse(req.chainId, req.requestId, Uint8Array.of(0x0a, 0xc8, 0x01));
      case 'invalid-signature':
        return conn.sendAppResponse(req.chainId, req.requestId, encodeSignatureResponse(this.bls.sign(this.sk, concatBytes(message.bytes, Uint8Array.of(0))).bytes));
      case 'wrong-key':
        return conn.sendAppResponse(req.chainId, req.requestId, encodeSignatureResponse(this.bls.sign(this.bls.generateSecretKey(), message.bytes).bytes));
      default: {
        const signature = this.options.signWith ? await this.options.signWith(message) : this.bls.sign(this.sk, message.bytes).bytes;
        conn.sendAppResponse(req.chainId, req.requestId, encodeSignatureResponse(signature));
      }
    }
  }
}
