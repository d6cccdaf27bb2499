// Typed errors of the p2p transport. Request failures share the WebSocket peer pool's vocabulary
// (util/request-failure.ts), so the aggregator treats both transports alike.
import { RequestFailedError, type RequestFailure } from '../util/request-failure.js';

export class P2PRequestError extends RequestFailedError {
  override readonly name = 'P2PRequestError';
  constructor(reason: RequestFailure, readonly nodeId: string, detail: string) {
    super(reason, `${nodeId}: ${detail}`);
  }
}

/**
 * The caller's own abort reason when it is already a request failure named 'aborted' (the
 * aggregator cancels hundreds of requests with one shared REQUEST_CANCELLED: a new Error, with its
 * stack, per request would cost the event loop milliseconds); else a P2PRequestError('aborted').
 */
export function abortedBy(signal: AbortSignal, nodeId: string): Error {
  const given: unknown = signal.reason;
  return given instanceof Error && (given as { reason?: unknown }).reason === 'aborted' ? given : new P2PRequestError('aborted', nodeId, 'the request was aborted');
}

/** Why a connection was closed; 'fault' kinds count as penalties against the peer. */
export type CloseReason =
  | { kind: 'local'; detail: string }
  /** afterOurHandshake: it closed before the handshake finished, most likely refusing ours (which avalanchego does without a word). */
  | { kind: 'remote'; detail: string; afterOurHandshake?: AfterOurHandshake }
  | { kind: 'timeout'; detail: string }
  | { kind: 'refused'; detail: string }
  | { kind: 'fault'; fault: PeerFault; detail: string };

/**
 * What an honest node does when it is slow or busy, and warpgate drops and counts (a metric)
 * without closing or penalising, as avalanchego drops what it does not expect: an answer that
 * comes after its request was given up on, a message not written because the peer has not read
 * the last 16 MiB, a Pong beyond the Pings sent, and a dial that met another node at a stale
 * address.
 */
export type DropKind = 'late-answer' | 'write-backlog' | 'surplus-pong' | 'stale-address';

/**
 * What to compare when a node closed right after our Handshake: a node refuses an incompatible
 * version (version/compatibility.go) or a clock more than 60 s off silently, by closing.
 */
interface AfterOurHandshake {
  ourVersion: string;
  /** Absent when its Handshake never came. */
  peerVersion?: string;
  /** Its clock minus ours, in seconds, from its Handshake's my_time. */
  clockOffsetS?: number;
}

/** Misbehaviour that disconnects a peer and counts against it. */
export type PeerFault =
  | 'oversized-frame'
  | 'unparseable-message'
  | 'bad-compression'
  | 'second-handshake'
  | 'bad-handshake'
  | 'wrong-node-id'
  | 'bad-certificate'
  | 'unrequested-response'
  | 'bad-response'
  | 'bad-ping'
  | 'unrequested-pong'
  | 'bad-peer-list'
  | 'bad-get-peer-list'
  | 'flood';

/** A certificate that avalanchego's staking rules (staking/parse.go) refuse. */
export class StakingCertificateError extends Error {
  override readonly name = 'StakingCertificateError';
}

/** A peer's Handshake that avalanchego's handleHandshake would refuse; `field` names the check. */
export class HandshakeRefusedError extends Error {
  override readonly name = 'HandshakeRefusedError';
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`handshake refused (${field}): ${detail}`);
  }
}

/** Bytes on the wire that are not a valid frame or message. */
export class P2PProtocolError extends Error {
  override readonly name = 'P2PProtocolError';
  constructor(
    readonly fault: PeerFault,
    detail: string,
  ) {
    super(detail);
  }
}
