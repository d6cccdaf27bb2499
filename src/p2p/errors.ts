// Typed errors of the p2p transport. The request failure vocabulary is the WebSocket peer pool's
// (src/peers/errors.ts), so the aggregator can treat both transports alike.

export type P2PRequestFailure =
  /** No answer before the deadline. */
  | 'timeout'
  /** The connection closed while the request was outstanding. */
  | 'disconnected'
  /** No connection (handshake and PeerList done) for that NodeID. */
  | 'not-connected'
  /** The peer answered with bytes that are not an ACP-118 response, or the request cannot be framed. */
  | 'protocol'
  /** The network was closed. */
  | 'closed'
  /** Too many requests outstanding to that peer. */
  | 'overloaded'
  /** The caller's AbortSignal fired. */
  | 'aborted';

export class P2PRequestError extends Error {
  override readonly name = 'P2PRequestError';
  constructor(
    readonly reason: P2PRequestFailure,
    readonly nodeId: string,
    detail: string,
  ) {
    super(`${nodeId}: ${detail}`);
  }
}

/** Why a connection was closed; 'fault' kinds count as penalties against the peer. */
export type CloseReason =
  | { kind: 'local'; detail: string }
  | { kind: 'remote'; detail: string }
  | { kind: 'timeout'; detail: string }
  | { kind: 'refused'; detail: string }
  | { kind: 'fault'; fault: PeerFault; detail: string };

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
  | 'unsolicited-pong'
  | 'bad-ping'
  | 'bad-peer-list'
  | 'bad-get-peer-list'
  | 'flood'
  | 'slow-reader';

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
