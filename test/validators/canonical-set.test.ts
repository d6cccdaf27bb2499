import { describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/bls/index.js';
import type { BackendName } from '../../src/bls/types.js';
import { canonicalSet, MAX_UINT64, type ValidatorEntry } from '../../src/validators/canonical-set.js';
import { ValidatorSetError } from '../../src/validators/errors.js';
import { PublicKeyCache } from '../../src/validators/key-cache.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { countingBackend, fixtureEntries, KEYLESS_NODE_ID, nodeIdFor, vector } from './fixture.js';

const backends: BackendName[] = ['blst', 'noble'];

describe.each(backends)('canonicalSet (%s)', (name) => {
  const bls = loadBackend(name);

  it('reproduces the canonicalSet fixture exactly', () => {
    const set = canonicalSet(fixtureEntries(), bls);
    expect(set.totalWeight).toBe(BigInt(vector.totalWeight));
    expect(set.validators.map((v) => v.publicKeyHex)).toEqual(vector.canonical.map((c) => c.publicKey));
    expect(set.validators.map((v) => v.weight.toString())).toEqual(vector.canonical.map((c) => c.weight));
    expect(set.validators.map((v) => v.nodeIds)).toEqual(vector.canonical.map((c) => c.nodes.map(nodeIdFor)));
    expect(set.validators.map((v) => bytesToHex(bls.publicKeyUncompressed(v.publicKey)))).toEqual(
      vector.canonical.map((c) => c.publicKeyUncompressed),
    );
    expect(set.backend).toBe(name);
    // The keyless validator counts in the total but is not in the set.
    expect(set.validators.some((v) => v.nodeIds.includes(KEYLESS_NODE_ID))).toBe(false);
  });

  it('finds a validator by compressed key hex, with or without 0x, any case', () => {
    const set = canonicalSet(fixtureEntries(), bls);
    const first = vector.canonical[0]!.publicKey;
    expect(set.indexOf(first)).toBe(0);
    expect(set.indexOf(`0x${vector.canonical[2]!.publicKey.toUpperCase()}`)).toBe(2);
    expect(set.indexOf('00'.repeat(48))).toBeUndefined();
  });

  it('does not depend on the input order', () => {
    const reversed = canonicalSet(fixtureEntries().reverse(), bls);
    expect(reversed.validators.map((v) => v.publicKeyHex)).toEqual(vector.canonical.map((c) => c.publicKey));
  });
});

describe('canonicalSet merging and limits', () => {
  const bls = loadBackend('blst');
  const keyA = hexToBytes(vector.validators[0]!.publicKey);
  const keyB = hexToBytes(vector.validators[1]!.publicKey);

  it('merges validators sharing a key: weights summed, node ids kept', () => {
    const entries: ValidatorEntry[] = [
      { nodeId: nodeIdFor('A'), weight: 100n, publicKey: keyA },
      { nodeId: nodeIdFor('B'), weight: 200n, publicKey: keyB },
      { nodeId: nodeIdFor('A2'), weight: 25n, publicKey: Uint8Array.from(keyA) },
      { nodeId: nodeIdFor('K'), weight: 7n, publicKey: null },
    ];
    const set = canonicalSet(entries, bls);
    expect(set.totalWeight).toBe(332n);
    expect(set.validators).toHaveLength(2);
    const a = set.validators[set.indexOf(bytesToHex(keyA))!]!;
    expect(a.weight).toBe(125n);
    expect(a.nodeIds).toEqual([nodeIdFor('A'), nodeIdFor('A2')]);
  });

  it('rejects a total weight that overflows uint64, naming the node', () => {
    const entries: ValidatorEntry[] = [
      { nodeId: nodeIdFor('A'), weight: MAX_UINT64, publicKey: keyA },
      { nodeId: nodeIdFor('K'), weight: 1n, publicKey: null },
    ];
    expect(() => canonicalSet(entries, bls)).toThrow(ValidatorSetError);
    expect(() => canonicalSet(entries, bls)).toThrow(new RegExp(`${nodeIdFor('K')}.*overflows uint64`));
    // The largest total that fits is fine.
    const fits = canonicalSet([{ nodeId: nodeIdFor('A'), weight: MAX_UINT64 - 1n, publicKey: keyA }, entries[1]!], bls);
    expect(fits.totalWeight).toBe(MAX_UINT64);
  });

  it('rejects weights outside uint64', () => {
    for (const weight of [-1n, MAX_UINT64 + 1n]) {
      expect(() => canonicalSet([{ nodeId: nodeIdFor('A'), weight, publicKey: keyA }], bls)).toThrow(/is not a uint64/);
    }
  });

  it('rejects an invalid key, naming the node', () => {
    const infinity = new Uint8Array(48);
    infinity[0] = 0xc0;
    const notOnCurve = new Uint8Array(48).fill(0x11);
    notOnCurve[0] = 0x9f;
    for (const bad of [infinity, notOnCurve, new Uint8Array(47)]) {
      let caught: unknown;
      try {
        canonicalSet([{ nodeId: nodeIdFor('A'), weight: 1n, publicKey: keyA }, { nodeId: nodeIdFor('bad'), weight: 1n, publicKey: bad }], bls);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ValidatorSetError);
      expect((caught as ValidatorSetError).entry).toBe(nodeIdFor('bad'));
      expect((caught as Error).message).toContain(nodeIdFor('bad'));
    }
  });

  it('is frozen, because one set is shared by concurrent aggregations', () => {
    const set = canonicalSet(fixtureEntries(), bls);
    expect(Object.isFrozen(set.validators)).toBe(true);
    expect(() => {
      set.validators[0]!.weight = 1n;
    }).toThrow(TypeError);
  });

  it('validates each key once when a key cache is shared', () => {
    let parsed = 0;
    const counting = countingBackend(bls, () => parsed++);
    const cache = new PublicKeyCache(counting);
    canonicalSet(fixtureEntries(), counting, cache);
    canonicalSet(fixtureEntries(), counting, cache);
    expect(parsed).toBe(3);
    expect(() => canonicalSet(fixtureEntries(), loadBackend('noble'), cache)).toThrow(/different BLS backend/);
  });
});
