// Which P-Chain height a message is signed at: the validator set there is the one whose signers
// go into the message, and the destination verifies against the set at its own height.
// - A pChainHeight the client gives (> 0) always wins: 'explicit'.
// - Otherwise, with a known destination chain, the P-Chain height of its current epoch: since
//   Granite (ACP-181) a chain verifies an incoming message against the set at that height, which
//   lags the tip by up to the epoch duration (longer on an idle chain): 'epoch'.
// - With no destination, or one whose epoch is the zero epoch (before Granite), the P-Chain's
//   proposed height, what a chain verifies against without epochs, as icm-services' signature
//   aggregator does for pchain-height 0 (signature-aggregator/api/api.go: pchainapi.ProposedHeight):
//   'proposed'.
// The decision is pure; the reads it needs are injected (the service wires the epoch cache and
// the P-Chain's proposed height).
import { isGraniteEpoch } from './epoch.js';

export type HeightSource = 'explicit' | 'epoch' | 'proposed';

export interface SigningHeight {
  height: number;
  source: HeightSource;
}

/** What choosing a height may read; each rejects with the reason of `signal` once it aborts. */
export interface SigningHeightReads {
  /** The destination chain's current epoch (validators/epoch-cache.ts). */
  epochOf(chainId: Uint8Array, opts: { signal?: AbortSignal }): Promise<{ number: number; startTime: number; pChainHeight: number }>;
  /** platform.getProposedHeight. */
  proposedHeight(opts: { signal?: AbortSignal }): Promise<number>;
}

/** The height to sign `request` at, and why. */
export async function chooseSigningHeight(
  request: { pChainHeight: number; destinationChainId?: Uint8Array },
  reads: SigningHeightReads,
  opts: { signal?: AbortSignal } = {},
): Promise<SigningHeight> {
  if (request.pChainHeight > 0) return { height: request.pChainHeight, source: 'explicit' };
  if (request.destinationChainId) {
    const epoch = await reads.epochOf(request.destinationChainId, opts);
    // Height 0 is the P-Chain's genesis, where no L1 has validators: no Granite epoch points there.
    if (isGraniteEpoch(epoch) && epoch.pChainHeight > 0) return { height: epoch.pChainHeight, source: 'epoch' };
  }
  return { height: await reads.proposedHeight(opts), source: 'proposed' };
}
