// Byzantine behaviours for the devnet and tests ONLY: they make a signer misbehave the ways real
// peers can, so the aggregator's defences can be exercised. `warpgate signer` never enables them.

export const FAULT_MODES = ['invalid-signature', 'wrong-key', 'silent', 'garbage', 'disconnect'] as const;

/**
 * - `invalid-signature`: answers with a valid signature by its key over other bytes;
 * - `wrong-key`: answers with a valid signature over the message by a different key;
 * - `silent`: never answers requests (the handshake and heartbeats still work);
 * - `garbage`: answers a request with a frame that is not JSON;
 * - `disconnect`: drops the connection when a request arrives.
 */
export type FaultMode = (typeof FAULT_MODES)[number];

export function isFaultMode(value: unknown): value is FaultMode {
  return typeof value === 'string' && (FAULT_MODES as readonly string[]).includes(value);
}
