// verifyAggregates: several unchecked sums at once, true iff each would pass verifyAggregate. The
// BLS pool checks the fewest signers' sum and the rest's this way, in one pairing, where the whole
// sum passing says nothing about the subset: errors that cancel across the two must not pass.
import { describe, expect, it } from 'vitest';
import type { BlsBackend } from '../../src/bls/types.js';
import { cancellingPair, outsideSubgroupPair, secretKey } from '../bls-pool/helpers.js';
import { backends, blst, utf8 } from './helpers.js';

const message = utf8('two sums, one pairing');
const sks = Array.from({ length: 6 }, (_, i) => secretKey(`verify-aggregates-${i}`));
const pkBytes = sks.map((sk) => blst.publicKeyOf(sk).bytes);
const good = sks.map((sk) => blst.sign(sk, message).bytes);

/** The sums of signatures 0–2 and 3–5, as a fold makes them (no subgroup check). */
function sums(bls: BlsBackend, sigs: Uint8Array[]) {
  const pks = pkBytes.map((b) => bls.publicKeyFromBytes(b));
  const sumOf = (from: number, to: number) => ({ pk: bls.aggregatePublicKeys(pks.slice(from, to)), sig: bls.sumUncheckedSignatures(sigs.slice(from, to)).sum! });
  return [sumOf(0, 3), sumOf(3, 6)];
}

describe('verifyAggregates', () => {
  for (const bls of backends) {
    it(`${bls.name}: passes sums that each pass, and fails when one of them does not`, () => {
      expect(bls.verifyAggregates(message, sums(bls, good))).toBe(true);
      const wrong = [...good];
      wrong[4] = blst.sign(sks[4]!, utf8('another message')).bytes;
      expect(bls.verifyAggregates(message, sums(bls, wrong))).toBe(false);
      expect(bls.verifyAggregates(message, [])).toBe(false);
    });

    for (const [name, pairOf] of [
      ['two bad signatures that cancel out', cancellingPair],
      ['two points outside the subgroup whose sum is inside it', outsideSubgroupPair],
    ] as const) {
      it(`${bls.name}: fails ${name}, one in each sum, though the whole sum passes`, () => {
        const sigs = [...good];
        [sigs[1], sigs[4]] = pairOf(good[1]!, good[4]!);
        const [a, b] = sums(bls, sigs);
        const whole = { pk: bls.aggregatePublicKeys([a!.pk, b!.pk]), sig: bls.aggregateSignatures([a!.sig, b!.sig]) };
        expect(bls.verifyAggregate(whole.pk, message, whole.sig)).toBe(true);
        expect(bls.verifyAggregates(message, [a!, b!])).toBe(false);
      });
    }
  }
});
