// The devnet's P-Chain history in time and heights, and the L1's validator set at any height of
// it. The conversion makes the L1 with at most MAX_CONVERSION_VALIDATORS active validators plus
// the inactive ones; the other validators are registered one block later; the featured
// registration adds the last validator; then one validator's weight changes. So getValidatorsAt
// at an older height gives a different set than the current one.
import type { ValidatorEntry } from '../../validators/canonical-set.js';
import { EMPTY_NODE_ID } from '../../node/pchain-results.js';
import { bytesToHex } from '../../warp/hex.js';
import type { HistoryHeights, L1ValidatorRecord } from './types.js';

/** P-Chain heights of the devnet's history. */
export const HEIGHTS = {
  conversion: 120,
  bulkRegistration: 121,
  registration: 125,
  weightChange: 130,
  proposed: 134,
  current: 136,
} as const satisfies HistoryHeights;

/** 2025-01-01T00:00:00Z: the devnet's clock starts here so that every field is reproducible. */
export const GENESIS_TIME = 1_735_689_600n;
const SECONDS_PER_BLOCK = 2n;

/** The `nonce` of the committed SetL1ValidatorWeightTx; the validator's minNonce becomes nonce + 1. */
export const WEIGHT_CHANGE_NONCE = 1n;

/** NodeID-111111111111111111116DBWJs: the entry carrying the inactive validators' weight. */
export const KEYLESS_NODE_ID = EMPTY_NODE_ID;

/** Unix time of a P-Chain height in the devnet's history. */
export function timeAtHeight(height: number): bigint {
  return GENESIS_TIME + BigInt(height) * SECONDS_PER_BLOCK;
}

/**
 * The L1's validator set at `height` as the P-Chain's validator manager reports it: active
 * validators with their keys, and one keyless entry carrying the inactive validators' weight.
 * Empty before the conversion.
 */
export function l1EntriesAt(records: readonly L1ValidatorRecord[], height: number): ValidatorEntry[] {
  const entries: ValidatorEntry[] = [];
  let keyless = 0n;
  for (const record of records) {
    const weight = weightAt(record, height);
    if (weight === undefined) continue;
    if (record.balance === 0n) keyless += weight;
    else entries.push({ nodeId: record.nodeId, weight, publicKey: record.publicKey });
  }
  if (keyless > 0n) entries.push({ nodeId: KEYLESS_NODE_ID, weight: keyless, publicKey: null });
  return entries;
}

/** A record's weight at `height`, or undefined when it was not yet a validator. */
function weightAt(record: L1ValidatorRecord, height: number): bigint | undefined {
  let weight: bigint | undefined;
  for (const step of record.weightHistory) {
    if (step.height <= height) weight = step.weight;
  }
  return weight;
}

/** Hex of a validation ID, the key the P-Chain state indexes records by. */
export function validationKey(validationId: Uint8Array): string {
  return bytesToHex(validationId);
}
