// Why a request to a signer peer produced no answer (the vocabulary: util/request-failure.ts).
import { RequestFailedError, type RequestFailure } from '../util/request-failure.js';

export class PeerRequestError extends RequestFailedError {
  override readonly name = 'PeerRequestError';
  /** `publicKey`: hex of the peer's 48-byte public key. */
  constructor(reason: RequestFailure, readonly publicKey: string, detail: string) {
    super(reason, `peer ${publicKey.slice(0, 16)}…: ${detail}`);
  }
}
