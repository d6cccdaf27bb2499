// Random 64-bit blinding scalars for batch verification (the size blst uses: a forged batch
// passes with probability 2^-64).
import { getRandomValues } from 'node:crypto';

// getRandomValues refuses requests above 65,536 bytes.
const MAX_WORDS_PER_CALL = 65_536 / 8;

/** `count` independent uniformly random non-zero 64-bit scalars. */
export function randomNonZeroScalars(count: number): BigUint64Array {
  const scalars = new BigUint64Array(count);
  for (let start = 0; start < count; start += MAX_WORDS_PER_CALL) {
    getRandomValues(scalars.subarray(start, Math.min(count, start + MAX_WORDS_PER_CALL)));
  }
  // A zero scalar would leave its signature unchecked; redraw it (probability 2^-64 each).
  for (let i = 0; i < count; i++) {
    while (scalars[i] === 0n) getRandomValues(scalars.subarray(i, i + 1));
  }
  return scalars;
}
