// What the aggregator sends to a signer peer and what comes back.

export interface SignatureRequest {
  /** Unsigned Warp message bytes, exactly as validators sign them. */
  message: Uint8Array;
  /** ACP-118 justification; may be empty. */
  justification: Uint8Array;
}

/** A signature is only checked to be 96 (compressed) or 192 bytes (uncompressed) here; the aggregator verifies it. */
export type PeerAnswer = { kind: 'signature'; signature: Uint8Array } | { kind: 'refused'; reason: string };
