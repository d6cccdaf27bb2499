// The optimistic path's two backend operations: summing signatures that are only decompressed
// (no subgroup check), and the check avalanchego makes of a signed message's aggregate (subgroup
// check, then one pairing). Both backends, against each other and against signatureFromBytes.
import { describe, expect, it } from 'vitest';
import type { BlsBackend } from '../../src/bls/types.js';
import { outsideSubgroupPair, secretKey } from '../bls-pool/helpers.js';
import { backends, blst, bytesToHex, g2PointOutsideSubgroup, g2XNotOnCurve, utf8 } from './helpers.js';

const message = utf8('unchecked sums');
const sks = Array.from({ length: 5 }, (_, i) => secretKey(`unchecked-${i}`));
const sigs = sks.map((sk) => blst.sign(sk, message).bytes);
const pkBytes = sks.map((sk) => blst.publicKeyOf(sk).bytes);
const infinity = new Uint8Array(96);
infinity[0] = 0xc0;

describe.each(backends)('$name backend: sumUncheckedSignatures and verifyAggregate', (backend: BlsBackend) => {
  const pks = pkBytes.map((b) => backend.publicKeyFromBytes(b));
  const keyOf = (list: number[]) => backend.aggregatePublicKeys(list.map((i) => pks[i]!));

  it('sums to the same bytes as the checked parse and plain sum, and the aggregate passes', () => {
    const { sum, rejected } = backend.sumUncheckedSignatures(sigs);
    expect(rejected).toEqual([]);
    const checked = backend.aggregateSignatures(sigs.map((s) => backend.signatureFromBytes(s)));
    expect(bytesToHex(sum!.bytes)).toBe(bytesToHex(checked.bytes));
    expect(backend.verifyAggregate(keyOf([0, 1, 2, 3, 4]), message, sum!)).toBe(true);
  });

  it('leaves out by position what does not decode: wrong length, garbage, an x not on the curve, no compression flag', () => {
    const uncompressedFlag = new Uint8Array(sigs[3]!);
    uncompressedFlag[0] = uncompressedFlag[0]! & 0x7f;
    const list = [sigs[0]!, sigs[1]!.subarray(0, 95), new Uint8Array(96).fill(0xab), sigs[2]!, g2XNotOnCurve(), uncompressedFlag];
    const { sum, rejected } = backend.sumUncheckedSignatures(list);
    expect(rejected).toEqual([1, 2, 4, 5]);
    expect(backend.verifyAggregate(keyOf([0, 2]), message, sum!)).toBe(true);
    expect(backend.sumUncheckedSignatures([g2XNotOnCurve()])).toEqual({ sum: undefined, rejected: [0] });
  });

  it('sums a point outside the subgroup, which signatureFromBytes refuses; verifyAggregate then fails', () => {
    expect(() => backend.signatureFromBytes(g2PointOutsideSubgroup())).toThrow(/subgroup/);
    const { sum, rejected } = backend.sumUncheckedSignatures([sigs[0]!, g2PointOutsideSubgroup()]);
    expect(rejected).toEqual([]);
    expect(backend.verifyAggregate(keyOf([0]), message, sum!)).toBe(false);
  });

  it('two points outside the subgroup whose sum is inside it: the aggregate is the right one and passes; either alone fails', () => {
    const [a, b] = outsideSubgroupPair(sigs[0]!, sigs[1]!);
    for (const bad of [a, b]) expect(() => backend.signatureFromBytes(bad)).toThrow(/subgroup/);
    const both = backend.sumUncheckedSignatures([a, b, sigs[2]!]).sum!;
    expect(bytesToHex(both.bytes)).toBe(bytesToHex(backend.sumUncheckedSignatures(sigs.slice(0, 3)).sum!.bytes));
    expect(backend.verifyAggregate(keyOf([0, 1, 2]), message, both)).toBe(true);
    expect(backend.verifyAggregate(keyOf([0, 2]), message, backend.sumUncheckedSignatures([a, sigs[2]!]).sum!)).toBe(false);
    expect(backend.verifyAggregate(keyOf([1]), message, backend.sumUncheckedSignatures([b]).sum!)).toBe(false);
  });

  it('verifyAggregate fails for another message or key, and for infinity', () => {
    const sum = backend.sumUncheckedSignatures(sigs.slice(0, 2)).sum!;
    expect(backend.verifyAggregate(keyOf([0, 1]), utf8('another'), sum)).toBe(false);
    expect(backend.verifyAggregate(keyOf([0, 2]), message, sum)).toBe(false);
    expect(backend.verifyAggregate(keyOf([0]), message, backend.sumUncheckedSignatures([infinity]).sum!)).toBe(false);
  });
});

describe('both backends agree on unchecked sums', () => {
  it('byte for byte, points outside the subgroup included', () => {
    const list = [sigs[0]!, g2PointOutsideSubgroup(), ...outsideSubgroupPair(sigs[1]!, sigs[2]!), sigs[3]!];
    const [a, b] = backends.map((backend) => bytesToHex(backend.sumUncheckedSignatures(list).sum!.bytes));
    expect(a).toBe(b);
  });
});
