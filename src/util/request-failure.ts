// Why a request to a signer produced no answer: one vocabulary for both transports (the WebSocket
// peer pool and the avalanchego p2p network), so the aggregator counts their failures alike
// (an error's `reason`; aggregator/peer-source.ts reads 'timeout').

export type RequestFailure =
  /** No answer before the deadline (including time spent queued behind other requests). */
  | 'timeout'
  /** The connection closed while the request was outstanding. */
  | 'disconnected'
  /** No connection that finished its handshake to that validator. */
  | 'not-connected'
  /** The peer broke the protocol answering it, or the request cannot be framed (too large). */
  | 'protocol'
  /** The pool or network was closed. */
  | 'closed'
  /** Too many requests outstanding or queued for that peer. */
  | 'overloaded'
  /** The caller's AbortSignal fired. */
  | 'aborted';

/** A request that produced no answer, and why; each transport names its peer in the message. */
export class RequestFailedError extends Error {
  constructor(
    readonly reason: RequestFailure,
    message: string,
  ) {
    super(message);
  }
}
