// What a collection needs from a signer transport: the WebSocket peer pool (src/peers) and the
// avalanchego p2p network (src/p2p) both satisfy it structurally, and a test or the bench can
// wrap either. The aggregator knows no transport; transports and the aggregator share the
// failure vocabulary of src/util/request-failure.ts (an error's `reason`: 'timeout', 'aborted', …).

export interface SignatureRequest {
  /** Unsigned Warp message bytes, exactly as validators sign them. */
  message: Uint8Array;
  /** ACP-118 justification; may be empty. */
  justification: Uint8Array;
}

/** A signature is only checked to be 96 bytes by the transport; the collection verifies it. */
export type PeerAnswer = { kind: 'signature'; signature: Uint8Array } | { kind: 'refused'; reason: string };

export interface PeerSource {
  isConnected(pkHex: string): boolean;
  /**
   * Rejects with an error whose `reason` is 'timeout' when no answer came in time. Cancelled
   * through `signal`, it rejects with the signal's reason (REQUEST_CANCELLED): no new Error.
   */
  request(pkHex: string, req: SignatureRequest, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<PeerAnswer>;
  penalize(pkHex: string, reason: string): void;
}

/** A request the collection no longer needs, in the transports' words ('aborted'). */
class RequestCancelled extends Error {
  override readonly name = 'RequestCancelled';
  readonly reason = 'aborted';
}

/**
 * What every request still outstanding when a collection ends is cancelled with: one object for
 * all of them, made once, since a collection may end with hundreds outstanding and an Error (with
 * its stack) per request cost milliseconds of the event loop. A transport rejects with it as is.
 */
export const REQUEST_CANCELLED: Error = new RequestCancelled('the aggregation no longer needs this signature');

/** A request failure that says no answer came in time (both transports name it so). */
export function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err as { reason?: unknown }).reason === 'timeout';
}
