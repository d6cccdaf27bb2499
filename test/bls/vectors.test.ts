// The golden BLS vectors (avalanchejs' key/signature/PoP vector and the canonicalSet validators)
// reproduced byte for byte by both backends.
import { describe, expect, it } from 'vitest';
import { backends, bytesToHex, hexToBytes, utf8, vectors } from './helpers.js';

const { bls, canonicalSet } = vectors;

describe.each(backends)('$name backend: golden vectors', (backend) => {
  const sk = backend.secretKeyFromBytes(hexToBytes(bls.secretKey));
  const pk = backend.publicKeyOf(sk);

  it('derives the public key and its uncompressed form from the secret key', () => {
    expect(bytesToHex(sk.bytes)).toBe(bls.secretKey);
    expect(bytesToHex(pk.bytes)).toBe(bls.publicKey);
    expect(bytesToHex(backend.publicKeyUncompressed(pk))).toBe(bls.publicKeyUncompressed);
    const parsed = backend.publicKeyFromBytes(hexToBytes(bls.publicKey));
    expect(bytesToHex(backend.publicKeyUncompressed(parsed))).toBe(bls.publicKeyUncompressed);
  });

  it('signs "test" to the vector signature, which verifies', () => {
    const sig = backend.sign(sk, utf8(bls.messageUtf8));
    expect(bytesToHex(sig.bytes)).toBe(bls.signature);
    const parsed = backend.signatureFromBytes(hexToBytes(bls.signature));
    expect(backend.verify(pk, utf8(bls.messageUtf8), parsed)).toBe(true);
    expect(backend.verify(pk, utf8('tesT'), parsed)).toBe(false);
  });

  it('produces and accepts the vector proof of possession', () => {
    expect(bytesToHex(backend.signProofOfPossession(sk).bytes)).toBe(bls.proofOfPossession);
    const pop = backend.signatureFromBytes(hexToBytes(bls.proofOfPossession));
    expect(backend.verifyProofOfPossession(pk, pop)).toBe(true);
  });

  it('rejects the signature made under the wrong DST', () => {
    // A valid G2 point, so it parses; it just is not a signature under Avalanche's DST.
    const wrong = backend.signatureFromBytes(hexToBytes(bls.signatureWithWrongDst_mustNotVerify));
    expect(backend.verify(pk, utf8(bls.messageUtf8), wrong)).toBe(false);
  });

  it('reproduces the canonicalSet keys, individual signatures and aggregates', () => {
    const message = hexToBytes(canonicalSet.unsignedMessage);
    const byKey = new Map(canonicalSet.validators.map((v) => [v.publicKey, v]));
    const keys = canonicalSet.canonical.map((entry, i) => {
      const validator = byKey.get(entry.publicKey);
      expect(validator).toBeDefined();
      const secret = backend.secretKeyFromBytes(hexToBytes(validator!.secretKey));
      const key = backend.publicKeyOf(secret);
      expect(bytesToHex(key.bytes)).toBe(entry.publicKey);
      expect(bytesToHex(backend.publicKeyUncompressed(key))).toBe(entry.publicKeyUncompressed);
      // individualSignatures are in canonical order.
      expect(bytesToHex(backend.sign(secret, message).bytes)).toBe(canonicalSet.individualSignatures[i]);
      return key;
    });
    const sigs = canonicalSet.individualSignatures.map((hex) => backend.signatureFromBytes(hexToBytes(hex)));
    for (const c of canonicalSet.cases) {
      const aggregate = backend.aggregateSignatures(c.signerIndices.map((i) => sigs[i]!));
      expect(bytesToHex(aggregate.bytes)).toBe(c.aggregateSignature);
      const aggregateKey = backend.aggregatePublicKeys(c.signerIndices.map((i) => keys[i]!));
      expect(backend.verify(aggregateKey, message, aggregate)).toBe(true);
      const sum = backend.decodeTrustedSum(backend.encodeSum({ pk: aggregateKey, sig: aggregate }));
      expect(bytesToHex(sum.sig.bytes)).toBe(c.aggregateSignature);
      expect(bytesToHex(sum.pk.bytes)).toBe(bytesToHex(aggregateKey.bytes));
      expect(backend.verify(sum.pk, message, sum.sig)).toBe(true);
    }
  });
});
