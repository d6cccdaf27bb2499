// What a P2P connection is configured with and what it hands out: its limits, this side's
// identity and claims, inbound requests, peers learnt from PeerLists, and answers to requests.
import type { BlsBackend } from '../bls/index.js';
import type { SignedIp } from './handshake.js';
import type { StakingCertificate } from './staking-certificate.js';
import type { ClientVersion } from './version.js';

export interface ConnectionLimits {
  maxMessageBytes: number;
  /** From the TLS session to the peer's PeerList. */
  handshakeTimeoutMs: number;
  pingIntervalMs: number;
  /** Close when nothing has been read for this long. */
  silenceTimeoutMs: number;
  maxOutstandingRequests: number;
  maxMessagesPerSecond: number;
  maxWriteBufferBytes: number;
  /** PeerList entries examined per message (a node sends at most 15 by default). */
  maxClaimedIpsPerPeerList: number;
}

/** What this side is and claims. */
export interface LocalSide {
  networkId: number;
  bls: BlsBackend;
  signedIp: SignedIp;
  version: ClientVersion;
  /** Peers below this version are refused. */
  minCompatible: ClientVersion;
  upgradeTimeSeconds: number;
  trackedSubnets: readonly Uint8Array[];
  allSubnets: boolean;
  supportedAcps: readonly number[];
  objectedAcps: readonly number[];
  currentAcps: ReadonlySet<number>;
  maxClockDifferenceS: number;
  /** Milliseconds since the epoch (the simulated node shifts it to model clock skew). */
  now(): number;
  /** Send PeerList, GetPeerList and App* zstd-compressed, as avalanchego does by default. */
  compressOutbound: boolean;
  /** avalanchego skips messages it cannot parse; warpgate disconnects and penalises. */
  onUnparseable: 'disconnect' | 'ignore';
  /**
   * A Pong when no Ping is outstanding: warpgate drops it (one queued behind a stall is not
   * misbehaviour); avalanchego closes the connection (network/peer/peer.go handlePong), and one
   * Pong answers every Ping outstanding (it keeps only the last Ping's time).
   */
  onUnrequestedPong: 'drop' | 'disconnect';
  /**
   * An AppResponse or AppError to a request never made: warpgate disconnects and penalises;
   * avalanchego's chain router drops it (snow/networking/router/chain_router.go).
   */
  onUnrequestedResponse: 'disconnect' | 'drop';
}

export interface InboundAppRequest {
  chainId: Uint8Array;
  requestId: number;
  deadlineNs: bigint;
  appBytes: Uint8Array;
}

/** A peer learnt from a PeerList entry whose signature checked out. */
export interface DiscoveredPeer {
  nodeId: string;
  host: string;
  port: number;
  timestamp: bigint;
  certificate: StakingCertificate;
}

export type P2PAnswer = { kind: 'signature'; signature: Uint8Array } | { kind: 'refused'; code: number; reason: string };

export interface SignatureRequestInput {
  chainId: Uint8Array;
  message: Uint8Array;
  justification: Uint8Array;
}
