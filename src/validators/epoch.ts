// ACP-181 epochs: since Granite a chain verifies incoming Warp messages against the validator set
// at its current epoch's P-Chain height, not at the tip. Facts from avalanchego:
// - Before Granite a chain reports the zero epoch (number 0); the first Granite epoch is number 1.
// - An epoch ends with the first block whose timestamp is at or after startTime + D (that block
//   still belongs to it); the next block starts the next epoch. D is upgrade.Config's
//   `graniteEpochDuration`: 5 minutes on Mainnet and Fuji, 30 s in the default (local network)
//   config.
// Reading an epoch and D from a node is node/epoch-results.ts; this is the arithmetic on them.

/** What this arithmetic needs of an epoch (node/epoch-results.ts ProposerEpoch has it). */
interface Epoch {
  /** 0 before Granite; the first epoch is 1. */
  number: number;
  /** Unix seconds. */
  startTime: number;
}

/** D on Mainnet and Fuji (upgrade.Mainnet / upgrade.Fuji in avalanchego's upgrade/upgrade.go). */
export const MAINNET_EPOCH_DURATION_MS = 5 * 60 * 1000;

/** False for the zero epoch a chain reports before Granite: sign at the proposed height then. */
export function isGraniteEpoch(epoch: Epoch): boolean {
  return epoch.number > 0;
}

/**
 * The earliest time (unix ms) at which the epoch can end: a block at or after startTime + D seals
 * it and the block after that starts the next one. Until then its pChainHeight is what the chain
 * verifies against. (The chain may accept a block up to avalanchego's maxSkew, 10 s, ahead of its
 * own clock, so callers wanting no overlap at all subtract a margin.)
 */
export function epochExpiryMs(epoch: Epoch, durationMs: number): number {
  if (!Number.isSafeInteger(durationMs) || durationMs < 0) {
    throw new RangeError(`epoch duration must be a non-negative integer of milliseconds, got ${durationMs}`);
  }
  return epoch.startTime * 1000 + durationMs;
}

/**
 * avalanchego's maxSkew (vms/proposervm/block.go): a block may carry a timestamp up to 10 s ahead
 * of the verifying node's clock, so the block that seals an epoch can come that long before
 * startTime + D by our clock.
 */
export const MAX_CLOCK_SKEW_MS = 10_000;

/**
 * Until when (unix ms) an epoch read at `nowMs` may be reused. Normally its expiry, `earlyMs`
 * sooner (MAX_CLOCK_SKEW_MS, so that an early sealing block does not outlive the cache); but an
 * idle chain keeps reporting an epoch past its expiry (no block has sealed it yet), and without a
 * floor every request would ask again, so it is reused for at least `minRefreshMs` more.
 */
export function epochCacheDeadlineMs(epoch: Epoch, durationMs: number, nowMs: number, minRefreshMs: number, earlyMs = 0): number {
  return Math.max(epochExpiryMs(epoch, durationMs) - earlyMs, nowMs + minRefreshMs);
}
