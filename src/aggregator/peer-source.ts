// What a collection needs from a signer transport: the WebSocket peer pool (src/peers) and the
// avalanchego p2p network (src/p2p) both satisfy it structurally, and a test or the bench can
// wrap either. The aggregator knows no transport; transports and the aggregator share the
// failure vocabulary of src/util/request-failure.ts (an error's `reason`: 'timeout', 'aborted', …).
import type { AskDone as Done, AskTicket } from '../util/ask.js';

export interface SignatureRequest {
  /** Unsigned Warp message bytes, exactly as validators sign them. */
  message: Uint8Array;
  /** ACP-118 justification; may be empty. */
  justification: Uint8Array;
}

/**
 * A signature is only checked for its length by the transport (96 bytes compressed; our own
 * signers' may be 192 uncompressed); the collection verifies it.
 */
export type PeerAnswer =
  | { kind: 'signature'; signature: Uint8Array }
  /** notYet: the signer may sign later, it does not know the message yet (an EVM block not yet accepted or executed). */
  | { kind: 'refused'; reason: string; notYet?: boolean };

export type { AskTicket, CancelWhy } from '../util/ask.js';
export { failedAsk } from '../util/ask.js';

/** How an asked request ended (util/ask.ts): an answer, or an error in the failure vocabulary. */
export type AskDone = Done<PeerAnswer>;

export interface PeerSource {
  isConnected(pkHex: string): boolean;
  /**
   * True while the transport expects a connection to this validator soon (it is being looked up
   * or dialled, and no dial to it has failed since): a collection then waits for it, within the
   * request timeout and its deadline, instead of counting it as not connected at once. Right
   * after start, the first read of a set is what starts those dials. Optional: a source without
   * it has its validators counted as not connected as soon as they are found so.
   */
  connecting?(pkHex: string): boolean;
  /**
   * Asks the validator with this key to sign `req`. The caller owns the deadline: it cancels the
   * request with 'timeout' once `timeoutMs` has passed (a collection keeps one timer for all its
   * requests, not one each). The transport uses `timeoutMs` to tell the peer how long the answer
   * is wanted (p2p's AppRequest deadline) and, as a safety net, drops requests left past it at
   * its own housekeeping, so a forgotten request cannot hold a slot for good.
   *
   * A callback, not a Promise: a collection sends ~1,000 requests, and a Promise, a timer and
   * an abort listener for each (in every layer: routing, answer tracker, transport) was most
   * of the event loop's cost per answer (bench --cpu-prof).
   */
  ask(pkHex: string, req: SignatureRequest, timeoutMs: number, done: AskDone): AskTicket;
  penalize(pkHex: string, reason: string): void;
}

/**
 * An `ask` over a Promise-returning request function (a transport's own API, or another signer
 * transport brought to the aggregator): one AbortController per request, for sources where
 * that cost does not matter.
 */
export function askViaPromise(
  request: (pkHex: string, req: SignatureRequest, opts: { timeoutMs: number; signal: AbortSignal }) => Promise<PeerAnswer>,
): PeerSource['ask'] {
  return (pkHex, req, timeoutMs, done) => {
    const controller = new AbortController();
    let live = true;
    let answer: Promise<PeerAnswer>;
    try {
      answer = request(pkHex, req, { timeoutMs, signal: controller.signal });
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then(
      (a) => {
        if (!live) return;
        live = false;
        done(undefined, a);
      },
      (err: unknown) => {
        if (!live) return;
        live = false;
        done(err instanceof Error ? err : new Error(String(err)), undefined);
      },
    );
    return {
      cancel: () => {
        if (!live) return;
        live = false;
        controller.abort(REQUEST_CANCELLED);
      },
    };
  };
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
