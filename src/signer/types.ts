// The signer's extension points: a backend produces a signature (or a refusal) for a parsed
// message, a policy decides whether a message may be signed at all.
import type { UnsignedMessage } from '../warp/unsigned-message.js';

export type { UnsignedMessage } from '../warp/unsigned-message.js';

export type SignOutcome = { kind: 'signature'; signature: Uint8Array } | { kind: 'refused'; reason: string };

export interface SigningBackend {
  sign(message: UnsignedMessage, justification: Uint8Array): Promise<SignOutcome>;
}

export interface SigningPolicy {
  /** null = allowed; otherwise the reason for refusing, shown to the service's operator. */
  check(message: UnsignedMessage, justification: Uint8Array): Promise<string | null>;
}
