import { describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/bls/index.js';
import type { BackendName } from '../../src/bls/types.js';
import { canonicalSet } from '../../src/validators/canonical-set.js';
import { QuorumPercentageError, ValidatorSetError } from '../../src/validators/errors.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { encodeSignedMessage, parseSignedMessage } from '../../src/warp/signed-message.js';
import { hexToBytes } from '../../src/warp/hex.js';
import { parseUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { fixtureEntries, fujiMessage, nodeIdFor, vector } from './fixture.js';

const backends: BackendName[] = ['blst', 'noble'];
const caseBytes = (i: number) => hexToBytes(vector.cases[i]!.signedMessage);
const unsigned = parseUnsignedMessage(hexToBytes(vector.unsignedMessage));
const aggregate = (i: number) => hexToBytes(vector.cases[i]!.aggregateSignature);

describe.each(backends)('verifySignedMessage (%s)', (name) => {
  const bls = loadBackend(name);
  const set = canonicalSet(fixtureEntries(), bls);

  it('accepts signers [0,1] (500 of 650) at 67%', () => {
    expect(verifySignedMessage(caseBytes(0), fixtureEntries(), 67, undefined, bls)).toEqual({
      valid: true,
      signedWeight: 500n,
      totalWeight: 650n,
      signers: [0, 1],
    });
  });

  it('rejects signers [0,2] (300 of 650) for quorum, with the weights in the reason', () => {
    const result = verifySignedMessage(caseBytes(1), set, 67, undefined, bls);
    expect(result).toMatchObject({ valid: false, signedWeight: 300n, totalWeight: 650n, signers: [0, 2] });
    expect(result.reason).toMatch(/insufficient weight.*300 of 650.*needs 436/);
    // The signature itself is fine: at a 40% quorum the same message verifies.
    expect(verifySignedMessage(caseBytes(1), set, 40, undefined, bls).valid).toBe(true);
  });

  it('accepts all three signers [0,1,2] and a parsed SignedMessage', () => {
    const parsed = parseSignedMessage(caseBytes(2));
    expect(verifySignedMessage(parsed, set, 67, 5, bls)).toEqual({ valid: true, signedWeight: 600n, totalWeight: 650n, signers: [0, 1, 2] });
  });

  it('agrees with every fixture case on meets67', () => {
    for (const c of vector.cases) {
      const result = verifySignedMessage(hexToBytes(c.signedMessage), set, 67, undefined, bls);
      expect(result.valid).toBe(c.meets67);
      expect(result.signedWeight.toString()).toBe(c.signedWeight);
      expect(result.signers).toEqual(c.signerIndices);
    }
  });

  it('rejects a tampered signature', () => {
    // Case 2's aggregate under case 0's bitset: a valid point, the wrong signature.
    const swapped = encodeSignedMessage(unsigned, Uint8Array.of(0x03), aggregate(2));
    const r1 = verifySignedMessage(swapped, set, 67, undefined, bls);
    expect(r1).toMatchObject({ valid: false, signedWeight: 500n, signers: [0, 1] });
    expect(r1.reason).toMatch(/does not verify/);

    // A flipped bit: no longer a valid G2 point encoding (or not the right one).
    const flipped = Uint8Array.from(caseBytes(0));
    flipped[flipped.length - 1]! ^= 0x01;
    const r2 = verifySignedMessage(flipped, set, 67, undefined, bls);
    expect(r2.valid).toBe(false);
    expect(r2.reason).toMatch(/aggregate signature/);
  });

  it('rejects a message whose unsigned bytes were changed', () => {
    const other = parseUnsignedMessage(hexToBytes(vector.unsignedMessage));
    const payload = Uint8Array.from(other.payload);
    payload[payload.length - 1]! ^= 0xff;
    const bytes = Uint8Array.from(other.bytes);
    bytes.set(payload, bytes.length - payload.length);
    const forged = encodeSignedMessage(parseUnsignedMessage(bytes), Uint8Array.of(0x07), aggregate(2));
    expect(verifySignedMessage(forged, set, 67, undefined, bls).reason).toMatch(/does not verify/);
  });

  it('rejects the wrong network id', () => {
    const result = verifySignedMessage(caseBytes(0), set, 67, 1, bls);
    expect(result).toMatchObject({ valid: false, signedWeight: 0n, signers: [] });
    expect(result.reason).toBe('network ID is 5, expected 1');
    expect(verifySignedMessage(caseBytes(0), set, 67, 5, bls).valid).toBe(true);
  });

  it('rejects a non-minimal bitset', () => {
    const padded = encodeSignedMessage(unsigned, Uint8Array.of(0x00, 0x03), aggregate(0));
    const result = verifySignedMessage(padded, set, 67, undefined, bls);
    expect(result.valid).toBe(false);
    expect(result.reason).toMatch(/bad signers bitset.*not minimally encoded/);
  });

  it('rejects a bitset index past the canonical set', () => {
    // Bit 3 set: the set has three validators (0..2).
    const outOfRange = encodeSignedMessage(unsigned, Uint8Array.of(0x0b), aggregate(0));
    const result = verifySignedMessage(outOfRange, set, 67, undefined, bls);
    expect(result.valid).toBe(false);
    expect(result.reason).toMatch(/bad signers bitset.*index 3.*has 3/);
  });

  it('rejects an empty signer set, even at a 0% quorum', () => {
    const empty = encodeSignedMessage(unsigned, new Uint8Array(0), aggregate(0));
    expect(verifySignedMessage(empty, set, 67, undefined, bls).reason).toMatch(/insufficient weight/);
    expect(verifySignedMessage(empty, set, 0, undefined, bls).reason).toBe('no signers');
  });

  it('reports malformed bytes instead of throwing', () => {
    for (const bytes of [new Uint8Array(0), hexToBytes(vector.unsignedMessage), caseBytes(0).subarray(0, 100), Uint8Array.of(1, 2, 3)]) {
      const result = verifySignedMessage(bytes, set, 67, undefined, bls);
      expect(result.valid).toBe(false);
      expect(result.reason).toMatch(/^malformed signed message: /);
    }
  });

  it('verifies with a canonical set built by the other backend', () => {
    const other = canonicalSet(fixtureEntries(), loadBackend(name === 'blst' ? 'noble' : 'blst'));
    expect(verifySignedMessage(caseBytes(0), other, 67, undefined, bls).valid).toBe(true);
  });
});

describe('verifySignedMessage arguments', () => {
  it('throws for a quorum outside 0-100 and for an unusable validator list', () => {
    expect(() => verifySignedMessage(hexToBytes(vector.cases[0]!.signedMessage), fixtureEntries(), 101)).toThrow(QuorumPercentageError);
    const bad = [{ nodeId: nodeIdFor('bad'), weight: 1n, publicKey: new Uint8Array(48) }];
    expect(() => verifySignedMessage(hexToBytes(vector.cases[0]!.signedMessage), bad)).toThrow(ValidatorSetError);
  });

  it('defaults to 67% and the default backend', () => {
    expect(verifySignedMessage(hexToBytes(vector.cases[0]!.signedMessage), fixtureEntries()).valid).toBe(true);
    expect(verifySignedMessage(hexToBytes(vector.cases[1]!.signedMessage), fixtureEntries()).valid).toBe(false);
  });

  it('does not accept the real Fuji message against the fixture set (different signers)', () => {
    const result = verifySignedMessage(hexToBytes(fujiMessage.signedMessage), fixtureEntries(), 67, fujiMessage.networkID);
    expect(result.valid).toBe(false);
  });
});
