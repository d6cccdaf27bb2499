// Why a request to a peer produced no answer.
import type { RequestFailure } from '../util/request-failure.js';

export type PeerRequestFailure = RequestFailure;

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
