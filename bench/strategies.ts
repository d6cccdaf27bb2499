// What the quorum bench compares (harness.ts measures each in a fresh service process):
// - warpgate: as it ships (the fewest signers in the message);
// - warpgateAllSigners: the same with aggregation.minimizeSigners off (every proven signature);
// - perSignatureVerify: the icm-services baseline, every answer verified alone (per-signature-verify.ts);
// - floor: the same service, transport and fan-out with no signature check and no aggregation
//   (floor.ts): what the path costs before any cryptography. Its answers are not valid;
// - icmServices: the real icm-services signature-aggregator (a Go binary, bench/icm-services.ts)
//   against the same simulated avalanchego nodes (--transport p2p only); not run by default.

export type Strategy = 'warpgate' | 'warpgateAllSigners' | 'perSignatureVerify' | 'floor' | 'icmServices';

/** Every strategy, in the order a run measures them. */
export const STRATEGIES: readonly Strategy[] = ['warpgate', 'icmServices', 'warpgateAllSigners', 'perSignatureVerify', 'floor'];

/** What a run measures without --strategies: icmServices needs a Go build and its source (bench/icm-services.ts). */
export const DEFAULT_STRATEGIES: readonly Strategy[] = STRATEGIES.filter((s) => s !== 'icmServices');

export function isStrategy(name: string): name is Strategy {
  return (STRATEGIES as readonly string[]).includes(name);
}

/**
 * Strategies whose signed messages carry no real aggregate signature: the after-run verification
 * skips them (and says so), and nothing else may rely on their answers.
 */
export const UNVERIFIABLE: ReadonlySet<Strategy> = new Set<Strategy>(['floor']);
