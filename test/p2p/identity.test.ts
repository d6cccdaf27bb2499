// Staking certificates and identities: generation as avalanchego does it, the acceptance rules
// of staking/parse.go and tls_config.go, NodeIDs (cross-checked with node:crypto and openssl),
// and the signed IP's byte layout and signatures.
import { describe, expect, it } from 'vitest';
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import { nobleBackend, POP_DST, SIGNATURE_DST } from '../../src/bls/index.js';
import {
  certificateDerFromPem,
  checkPeerCertificate,
  generateStakingCertificate,
  loadStakingIdentity,
  parseStakingCertificate,
  selfSignedCertificatePem,
  StakingCertificateError,
  unsignedIpBytes,
  ipToWireBytes,
  signIpWithTlsKey,
  verifyIpTlsSignature,
  signIpWithBls,
  verifyIpBlsSignature,
  ipFromWireBytes,
} from '../../src/p2p/index.js';

function nodeIdViaNodeCrypto(der: Uint8Array): string {
  const id = createHash('ripemd160').update(createHash('sha256').update(der).digest()).digest();
  const checksum = createHash('sha256').update(id).digest().subarray(-4);
  return `NodeID-${bs58.encode(Buffer.concat([id, checksum]))}`;
}

function pemForKey(key: ReturnType<typeof generateKeyPairSync>['privateKey']): string {
  return selfSignedCertificatePem(key);
}

describe('generated staking certificates', () => {
  const { certPem, keyPem } = generateStakingCertificate();
  const der = certificateDerFromPem(certPem);

  it('are ECDSA P-256, serial 0, empty names, digitalSignature, valid from 1999-12-31 for 100 years', () => {
    const c = new X509Certificate(certPem);
    expect(c.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(c.serialNumber).toBe('0');
    expect(c.subject ?? '').toBe('');
    expect(c.issuer ?? '').toBe('');
    expect(new Date(c.validFrom).toISOString()).toBe('1999-12-31T00:00:00.000Z');
    expect(new Date(c.validTo).getUTCFullYear()).toBe(new Date().getUTCFullYear() + 100);
    expect(keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('pass openssl: self-signed, key usage Digital Signature, CA:FALSE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wg-cert-'));
    writeFileSync(join(dir, 'staker.crt'), certPem);
    const text = execFileSync('openssl', ['x509', '-in', join(dir, 'staker.crt'), '-noout', '-text']).toString();
    expect(text).toMatch(/Serial Number: 0 \(0x0\)/);
    expect(text).toMatch(/ecdsa-with-SHA256/);
    expect(text).toMatch(/NIST CURVE: P-256/);
    expect(text).toMatch(/Key Usage: critical\s+Digital Signature/);
    expect(text).toMatch(/CA:FALSE/);
    expect(execFileSync('openssl', ['verify', '-CAfile', join(dir, 'staker.crt'), join(dir, 'staker.crt')]).toString()).toMatch(/OK/);
  });

  it('have the NodeID RIPEMD-160(SHA-256(DER)), by @noble and by node:crypto alike', () => {
    const identity = loadStakingIdentity(certPem, keyPem);
    expect(identity.nodeId).toBe(nodeIdViaNodeCrypto(der));
    expect(identity.nodeId).toMatch(/^NodeID-[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it('load only with their own key', () => {
    const other = generateStakingCertificate();
    expect(() => loadStakingIdentity(certPem, other.keyPem)).toThrow(/does not belong/);
    expect(() => loadStakingIdentity(certPem, 'not a key')).toThrow(StakingCertificateError);
    expect(() => loadStakingIdentity('nothing', keyPem)).toThrow(/no PEM CERTIFICATE/);
  });
});

describe('peer certificate rules (staking/parse.go, tls_config.go)', () => {
  it('accepts RSA 2048 and 4096 with e = 65537', () => {
    for (const modulusLength of [2048, 4096]) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength, publicExponent: 65537 });
      const cert = checkPeerCertificate(certificateDerFromPem(pemForKey(privateKey)));
      expect(cert.keyType).toBe('rsa');
    }
  });

  it('refuses RSA 3072, RSA with e = 3, ECDSA P-384 and an unknown key algorithm', () => {
    const rsa3072 = generateKeyPairSync('rsa', { modulusLength: 3072 }).privateKey;
    expect(() => checkPeerCertificate(certificateDerFromPem(pemForKey(rsa3072)))).toThrow(/unsupported RSA modulus bitlen: 3072/);
    const rsaE3 = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 3 }).privateKey;
    expect(() => checkPeerCertificate(certificateDerFromPem(pemForKey(rsaE3)))).toThrow(/unsupported RSA public exponent: 3/);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    expect(() => checkPeerCertificate(certificateDerFromPem(pemForKey(p384)))).toThrow(/only P256/);
    // staking/parse.go alone reads a P-384 point as a P-256 one and fails to unmarshal it.
    expect(() => parseStakingCertificate(certificateDerFromPem(pemForKey(p384)))).toThrow(/unmarshal elliptic curve point/);
    // id-ecPublicKey (1.2.840.10045.2.1) rewritten to 1.2.840.10045.2.2: parse.go's default case.
    const der = Buffer.from(certificateDerFromPem(generateStakingCertificate().certPem));
    const oid = Buffer.from('06072a8648ce3d0201', 'hex');
    const at = der.indexOf(oid);
    expect(at).toBeGreaterThan(0);
    der[at + oid.length - 1] = 0x02;
    expect(() => parseStakingCertificate(der)).toThrow(/unknown public key algorithm 1.2.840.10045.2.2/);
  });

  it('refuses more than 2 KiB even when the certificate inside is fine', () => {
    const der = certificateDerFromPem(generateStakingCertificate().certPem);
    expect(parseStakingCertificate(der).keyType).toBe('ecdsa');
    const padded = new Uint8Array(2049);
    padded.set(der);
    expect(() => parseStakingCertificate(padded)).toThrow(/2049 bytes is more than 2048/);
  });

  it('refuses malformed DER: truncated, non-minimal length, wrong structure', () => {
    const der = certificateDerFromPem(generateStakingCertificate().certPem);
    expect(() => parseStakingCertificate(der.subarray(0, der.length - 10))).toThrow(/malformed certificate/);
    expect(() => parseStakingCertificate(Uint8Array.of(0x30, 0x81, 0x05, 1, 2, 3, 4, 5))).toThrow(/malformed/);
    expect(() => parseStakingCertificate(Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x00))).toThrow(/malformed tbs/);
  });
});

describe('signed IP (network/peer/ip.go)', () => {
  it('lays out IPv4-mapped-16 ‖ port u16 ‖ timestamp u64, big-endian', () => {
    const bytes = unsignedIpBytes(ipToWireBytes('127.0.0.1'), 9651, 0x0102030405060708n);
    expect(Buffer.from(bytes).toString('hex')).toBe('00000000000000000000ffff7f00000125b30102030405060708');
    expect(unsignedIpBytes(ipToWireBytes('::ffff:127.0.0.1'), 9651, 0x0102030405060708n)).toEqual(bytes);
    expect(Buffer.from(unsignedIpBytes(ipToWireBytes('2001:db8::1'), 1, 0n)).toString('hex')).toBe('20010db8000000000000000000000001' + '0001' + '0000000000000000');
    expect(ipFromWireBytes(ipToWireBytes('::ffff:10.0.0.1'))).toBe('10.0.0.1');
    expect(ipFromWireBytes(Uint8Array.of(1, 2, 3))).toBeUndefined();
  });

  it('is signed over SHA-256 by ECDSA (DER) and RSA (PKCS#1 v1.5) keys, and a changed byte fails', () => {
    const unsigned = unsignedIpBytes(ipToWireBytes('10.1.2.3'), 9651, 1_700_000_000n);
    for (const key of [generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey]) {
      const cert = parseStakingCertificate(certificateDerFromPem(pemForKey(key)));
      const sig = signIpWithTlsKey(key, unsigned);
      expect(verifyIpTlsSignature(cert.publicKey, unsigned, sig)).toBe(true);
      const other = Uint8Array.from(unsigned);
      other[25]! ^= 1;
      expect(verifyIpTlsSignature(cert.publicKey, other, sig)).toBe(false);
    }
    const ecSig = signIpWithTlsKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, unsigned);
    expect(ecSig[0]).toBe(0x30); // ASN.1 DER SEQUENCE, as Go's ecdsa signer produces
  });

  it('is signed by BLS under the proof-of-possession DST, not the signature DST', () => {
    const noble = nobleBackend();
    const sk = noble.generateSecretKey();
    const pk = noble.publicKeyOf(sk);
    const unsigned = unsignedIpBytes(ipToWireBytes('10.1.2.3'), 9651, 1n);
    const sig = signIpWithBls(noble, sk, unsigned);
    expect(verifyIpBlsSignature(noble, pk, unsigned, sig)).toBe(true);
    expect(noble.verifyWithDst(pk, unsigned, noble.signatureFromBytes(sig), POP_DST)).toBe(true);
    expect(noble.verifyWithDst(pk, unsigned, noble.signatureFromBytes(sig), SIGNATURE_DST)).toBe(false);
  });
});
