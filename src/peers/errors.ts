// Why a request to a peer produced no answer.

export type PeerRequestFailure =
  /** No answer before the deadline (including time spent queued behind other requests). */
  | 'timeout'
  /** The connection closed while the request was outstanding. */
  | 'disconnected'
  /** No authenticated connection for that key. */
  | 'not-connected'
  /** The peer broke the protocol answering it, or the request cannot be framed (too large). */
  | 'protocol'
  /** The pool was closed. */
  | 'closed'
  /** The request queue for that peer is full. */
  | 'overloaded'
  /** The caller's AbortSignal fired. */
  | 'aborted';

export class PeerRequestError extends Error {
  override readonly name = 'PeerRequestError';
  constructor(
    readonly reason: PeerRequestFailure,
    /** Hex of the peer's 48-byte public key. */
    readonly publicKey: string,
    detail: string,
  ) {
    super(`peer ${publicKey.slice(0, 16)}…: ${detail}`);
  }
}
