// verifyAggregates: many signed messages' aggregates checked together (random scalars, one final
// exponentiation). It may say true only when every set passes verifyAggregate alone, which is the
// check avalanchego makes of each signed message; both backends, table-driven.
import { describe, expect, it } from 'vitest';
import type { AggregateSet, BlsBackend } from '../../src/bls/types.js';
import { outsideSubgroupPair, secretKey } from '../bls-pool/helpers.js';
import { backends, g2PointOutsideSubgroup, utf8 } from './helpers.js';

const keyBytes = Array.from({ length: 6 }, (_, i) => secretKey(`verify-aggregates-${i}`).bytes);
const messages = Array.from({ length: 4 }, (_, i) => utf8(`message ${i}`));

describe.each(backends)('$name backend: verifyAggregates', (bls: BlsBackend) => {
  const sks = keyBytes.map((b) => bls.secretKeyFromBytes(b));
  const pks = sks.map((sk) => bls.publicKeyOf(sk));
  /** Signers `who` over message `m`: the summed key and the unchecked sum of their signatures. */
  const aggregateOf = (m: number, who: number[], sigs = who.map((i) => bls.sign(sks[i]!, messages[m]!).bytes)): AggregateSet => ({
    pk: bls.aggregatePublicKeys(who.map((i) => pks[i]!)),
    message: messages[m]!,
    sig: bls.sumUncheckedSignatures(sigs).sum!,
  });
  const valid = [aggregateOf(0, [0, 1, 2]), aggregateOf(1, [3, 4]), aggregateOf(2, [5]), aggregateOf(3, [0, 5])];

  const cancelling = (): AggregateSet => {
    const negated = bls.negateSum({ pk: pks[0]!, sig: bls.sign(sks[0]!, messages[0]!) });
    const both = bls.negateSum(negated);
    return {
      pk: bls.aggregatePublicKeys([both.pk, negated.pk]),
      message: messages[0]!,
      sig: bls.aggregateSignatures([both.sig, negated.sig]),
    };
  };

  const cases: { name: string; bad: () => AggregateSet }[] = [
    { name: 'a signature over another message', bad: () => ({ ...aggregateOf(1, [3, 4]), message: messages[2]! }) },
    { name: 'a key missing one signer', bad: () => ({ ...aggregateOf(1, [3, 4]), pk: pks[3]! }) },
    { name: 'a point outside the subgroup in the sum', bad: () => aggregateOf(0, [0], [bls.sign(sks[0]!, messages[0]!).bytes, g2PointOutsideSubgroup()]) },
    {
      name: 'one of two points outside the subgroup whose sum is inside it',
      bad: () => {
        const [a] = outsideSubgroupPair(bls.sign(sks[0]!, messages[0]!).bytes, bls.sign(sks[1]!, messages[0]!).bytes);
        return { pk: pks[0]!, message: messages[0]!, sig: bls.sumUncheckedSignatures([a]).sum! };
      },
    },
    { name: 'keys and signatures that cancel out to infinity', bad: cancelling },
  ];

  it('passes sets that each pass alone, from one set to many, a message repeated included', () => {
    for (const set of valid) expect(bls.verifyAggregate(set.pk, set.message, set.sig)).toBe(true);
    for (let n = 1; n <= valid.length; n++) expect(bls.verifyAggregates(valid.slice(0, n))).toBe(true);
    expect(bls.verifyAggregates([...valid, aggregateOf(0, [3])])).toBe(true);
  });

  it('an empty list proves nothing', () => {
    expect(bls.verifyAggregates([])).toBe(false);
  });

  it.each(cases)('fails the whole batch for $name, wherever it stands, and verifyAggregate names it', ({ bad }) => {
    const set = bad();
    expect(bls.verifyAggregate(set.pk, set.message, set.sig)).toBe(false);
    expect(bls.verifyAggregates([set])).toBe(false);
    for (let at = 0; at <= valid.length; at++) {
      const batch = [...valid.slice(0, at), set, ...valid.slice(at)];
      expect(bls.verifyAggregates(batch)).toBe(false);
      expect(batch.map((s) => bls.verifyAggregate(s.pk, s.message, s.sig))).toEqual(batch.map((_, i) => i !== at));
    }
  });
});
