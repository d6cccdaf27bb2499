// Which validators misbehave in a `--byzantine K` devnet. The promise to users is that the
// honest validators still hold MORE than 80% of the total weight (keyless weight counts in the
// total and is never honest), so aggregation at 67% must still succeed. Picking the K lightest
// eligible validators maximizes the honest weight: if even they are too heavy, no choice works.
import { FAULT_MODES, type FaultMode } from '../../signer/faults.js';
import { DevnetGenesisError } from './errors.js';

/** The fraction the honest validators must exceed, as a percentage. */
const HONEST_WEIGHT_PERCENT = 80n;

interface ByzantineCandidate {
  index: number;
  weight: bigint;
}

/** True iff `honest` is strictly more than 80% of `total`. */
function honestEnough(honest: bigint, total: bigint): boolean {
  return honest * 100n > total * HONEST_WEIGHT_PERCENT;
}

function percent(part: bigint, total: bigint): string {
  if (total === 0n) return '0';
  return (Number((part * 1_000_000n) / total) / 10_000).toFixed(2);
}

/**
 * The indices of the `count` lightest candidates (ties broken by index), each with its fault
 * mode, in index order. Throws DevnetGenesisError when there are not enough candidates or when
 * the honest rest would not hold more than 80% of `totalWeight`.
 */
export function chooseByzantine(
  candidates: readonly ByzantineCandidate[],
  count: number,
  totalWeight: bigint,
  honestWeightBefore: bigint,
): Map<number, FaultMode> {
  if (!Number.isInteger(count) || count < 0) {
    throw new DevnetGenesisError('byzantine', `must be a whole number of validators, got ${count}`);
  }
  if (count > candidates.length) {
    throw new DevnetGenesisError(
      'byzantine',
      `${count} byzantine validators asked for, but only ${candidates.length} validators can misbehave in this devnet`,
    );
  }
  const lightest = [...candidates].sort((a, b) => (a.weight < b.weight ? -1 : a.weight > b.weight ? 1 : a.index - b.index));
  const chosen = lightest.slice(0, count);
  const byzantineWeight = chosen.reduce((sum, c) => sum + c.weight, 0n);
  const honest = honestWeightBefore - byzantineWeight;
  if (!honestEnough(honest, totalWeight)) {
    let feasible = 0;
    let weight = 0n;
    for (const c of lightest) {
      if (!honestEnough(honestWeightBefore - weight - c.weight, totalWeight)) break;
      weight += c.weight;
      feasible++;
    }
    throw new DevnetGenesisError(
      'byzantine',
      `with ${count} byzantine validators (the lightest) the honest ones would hold ${percent(honest, totalWeight)}% ` +
        `of the weight, but they must hold more than ${HONEST_WEIGHT_PERCENT}%; at most ${feasible} can misbehave in this devnet`,
    );
  }
  const faults = new Map<number, FaultMode>();
  chosen
    .map((c) => c.index)
    .sort((a, b) => a - b)
    // Validators get the signer's fault modes in turn, so every mode shows up.
    .forEach((index, i) => faults.set(index, FAULT_MODES[i % FAULT_MODES.length]!));
  return faults;
}
