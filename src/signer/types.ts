// The signer's extension points: a backend produces a signature (or a refusal) for a parsed
// message, a policy decides whether a message may be signed at all.
import type { UnsignedMessage } from '../warp/unsigned-message.js';

export type { UnsignedMessage } from '../warp/unsigned-message.js';

/**
 * `signature`: 96 bytes compressed or 192 uncompressed; the session sends the form the service
 * asked for and converts (with every check) only when the backend answered in the other.
 */
export type SignOutcome = { kind: 'signature'; signature: Uint8Array } | { kind: 'refused'; reason: string };

export interface SigningBackend {
  sign(message: UnsignedMessage, justification: Uint8Array): Promise<SignOutcome>;
}

/** A policy's decision about one message and justification, and whether it can ever change. */
export interface Verdict {
  /** null = allowed; otherwise the reason for refusing, shown to the service's operator. */
  reason: string | null;
  /**
   * True when the same message and justification get the same answer for as long as this policy
   * runs: the answer follows from the bytes alone, or from state that never changes back (an
   * accepted message, a conversion, an expiry that has passed). False when it rests on state that
   * moves (a validator's weight) or on a failure (the node did not answer): such a verdict may be
   * used only for the request that asked.
   */
  final: boolean;
}

export interface SigningPolicy {
  /** null = allowed; otherwise the reason for refusing, shown to the service's operator. */
  check(message: UnsignedMessage, justification: Uint8Array): Promise<string | null>;
  /** The same decision with whether it is final; a policy without it is never cached. */
  decide?(message: UnsignedMessage, justification: Uint8Array): Promise<Verdict>;
}
