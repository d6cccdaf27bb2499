// Signatures under caller-chosen DSTs (the peer handshake) and proofs of possession must never
// be interchangeable with each other or with Warp signatures.
import { describe, expect, it } from 'vitest';
import { POP_DST, SIGNATURE_DST } from '../../src/bls/constants.js';
import { backends, blst, bytesToHex, noble, utf8 } from './helpers.js';

const HANDSHAKE_DST = 'WARPGATE_TEST_HANDSHAKE_V1_BLS12381G2_XMD:SHA-256_SSWU_RO_';
const OTHER_DST = 'WARPGATE_TEST_OTHER_V1_BLS12381G2_XMD:SHA-256_SSWU_RO_';
const challenge = utf8('challenge 8f3a');

describe.each(backends)('$name backend: domain separation', (backend) => {
  const sk = backend.generateSecretKey();
  const pk = backend.publicKeyOf(sk);

  it('a signature under one DST verifies only under that DST', () => {
    const sig = backend.signWithDst(sk, challenge, HANDSHAKE_DST);
    expect(backend.verifyWithDst(pk, challenge, sig, HANDSHAKE_DST)).toBe(true);
    expect(backend.verifyWithDst(pk, challenge, sig, OTHER_DST)).toBe(false);
    expect(backend.verifyWithDst(pk, challenge, sig, POP_DST)).toBe(false);
    // ...and is not a Warp signature over the same bytes.
    expect(backend.verify(pk, challenge, sig)).toBe(false);
  });

  it('a Warp signature is not a handshake signature', () => {
    const warp = backend.sign(sk, challenge);
    expect(backend.verifyWithDst(pk, challenge, warp, HANDSHAKE_DST)).toBe(false);
    // signWithDst under the Warp DST is exactly sign().
    expect(bytesToHex(backend.signWithDst(sk, challenge, SIGNATURE_DST).bytes)).toBe(bytesToHex(warp.bytes));
  });

  it('a proof of possession is not a Warp signature over the key, nor the other way round', () => {
    const pop = backend.signProofOfPossession(sk);
    expect(backend.verifyProofOfPossession(pk, pop)).toBe(true);
    expect(backend.verify(pk, pk.bytes, pop)).toBe(false);
    expect(backend.verifyProofOfPossession(pk, backend.sign(sk, pk.bytes))).toBe(false);
    const otherPk = backend.publicKeyOf(backend.generateSecretKey());
    expect(backend.verifyProofOfPossession(otherPk, pop)).toBe(false);
  });
});

it('both backends sign identically under a custom DST and accept each other', () => {
  const sk = blst.generateSecretKey();
  const nobleSk = noble.secretKeyFromBytes(sk.bytes);
  const a = blst.signWithDst(sk, challenge, HANDSHAKE_DST);
  const b = noble.signWithDst(nobleSk, challenge, HANDSHAKE_DST);
  expect(bytesToHex(a.bytes)).toBe(bytesToHex(b.bytes));
  expect(bytesToHex(blst.signProofOfPossession(sk).bytes)).toBe(
    bytesToHex(noble.signProofOfPossession(nobleSk).bytes),
  );
  const nobleView = noble.publicKeyFromBytes(blst.publicKeyOf(sk).bytes);
  expect(noble.verifyWithDst(nobleView, challenge, noble.signatureFromBytes(a.bytes), HANDSHAKE_DST)).toBe(true);
  // blst's signature handle from signWithDst works in blst's own aggregation.
  expect(blst.aggregateSignatures([a]).bytes).toEqual(a.bytes);
});
