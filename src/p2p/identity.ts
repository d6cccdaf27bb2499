// warpgate's own staking identity: a TLS certificate and key made as avalanchego makes them
// (staking/tls.go NewCertAndKeyBytes: ECDSA P-256 key, self-signed certificate with serial 0,
// empty subject and issuer, valid from 2000-01-00 (= 1999-12-31) for 100 years, key usage
// digitalSignature, basic constraints present; PEM "CERTIFICATE" and PKCS#8 "PRIVATE KEY"),
// or loaded from staker.crt / staker.key.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import * as x509 from '@peculiar/asn1-x509';
import { bytesEqual } from '../warp/hex.js';
import { StakingCertificateError } from './errors.js';
import { parseStakingCertificate, type StakingCertificate } from './staking-certificate.js';

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';

export interface StakingIdentity {
  readonly certificate: StakingCertificate;
  readonly certPem: string;
  readonly keyPem: string;
  readonly privateKey: KeyObject;
  readonly nodeId: string;
}

/** A new ECDSA P-256 certificate and key as PEM, the way avalanchego generates staking keys. */
export function generateStakingCertificate(now: Date = new Date()): { certPem: string; keyPem: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { certPem: selfSignedCertificatePem(privateKey, now), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/**
 * A self-signed certificate for any key, laid out as avalanchego's (ECDSA keys sign with
 * ecdsa-with-SHA256, RSA keys with sha256WithRSAEncryption). Exported for operators' own keys and
 * for tests of the certificate rules. `signTbs` replaces node:crypto's signature (random per
 * call) with one of the caller's (the devnet signs deterministically, so a seed gives one NodeID).
 */
export function selfSignedCertificatePem(privateKey: KeyObject, now: Date = new Date(), signTbs?: (tbs: Uint8Array) => Uint8Array): string {
  const publicKey = createPublicKey(privateKey);
  const notAfter = new Date(now.getTime());
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + 100);
  const signatureAlgorithm =
    publicKey.asymmetricKeyType === 'rsa'
      ? new x509.AlgorithmIdentifier({ algorithm: SHA256_WITH_RSA, parameters: null })
      : new x509.AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 });
  const tbsCertificate = new x509.TBSCertificate({
    version: x509.Version.v3,
    serialNumber: new Uint8Array([0]).buffer,
    signature: signatureAlgorithm,
    issuer: new x509.Name(),
    // Go's time.Date(2000, time.January, 0, ...) normalises to 1999-12-31.
    validity: new x509.Validity({ notBefore: new Date(Date.UTC(1999, 11, 31)), notAfter }),
    subject: new x509.Name(),
    subjectPublicKeyInfo: AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), x509.SubjectPublicKeyInfo),
    extensions: new x509.Extensions([
      new x509.Extension({
        extnID: x509.id_ce_keyUsage,
        critical: true,
        extnValue: new OctetString(AsnConvert.serialize(new x509.KeyUsage(x509.KeyUsageFlags.digitalSignature))),
      }),
      new x509.Extension({
        extnID: x509.id_ce_basicConstraints,
        critical: true,
        extnValue: new OctetString(AsnConvert.serialize(new x509.BasicConstraints({ cA: false }))),
      }),
    ]),
  });
  const tbs = Buffer.from(AsnConvert.serialize(tbsCertificate));
  const signed = signTbs ? Buffer.from(signTbs(tbs)) : sign('sha256', tbs, privateKey);
  const signatureValue = signed.buffer.slice(signed.byteOffset, signed.byteOffset + signed.byteLength) as ArrayBuffer;
  return toPem('CERTIFICATE', Buffer.from(AsnConvert.serialize(new x509.Certificate({ tbsCertificate, signatureAlgorithm, signatureValue }))));
}

function toPem(label: string, der: Uint8Array): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The DER of the first CERTIFICATE block of a PEM text. */
export function certificateDerFromPem(pem: string): Uint8Array {
  const m = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(pem);
  if (!m) throw new StakingCertificateError('no PEM CERTIFICATE block found');
  return Uint8Array.from(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
}

/**
 * Loads a certificate and its private key (PKCS#8, PKCS#1 RSA or SEC1 EC PEM, as Go's
 * tls.X509KeyPair reads them); refuses a pair whose keys differ and a certificate that peers
 * would refuse.
 */
export function loadStakingIdentity(certPem: string, keyPem: string): StakingIdentity {
  const der = certificateDerFromPem(certPem);
  const certificate = parseStakingCertificate(der);
  try {
    new X509Certificate(Buffer.from(der));
  } catch {
    throw new StakingCertificateError('the certificate is not valid X.509');
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(keyPem);
  } catch (err) {
    throw new StakingCertificateError(`the staking key is not a PEM private key (${(err as Error).message})`);
  }
  const fromKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const fromCert = certificate.publicKey.export({ type: 'spki', format: 'der' });
  if (!bytesEqual(fromKey, fromCert)) throw new StakingCertificateError('the staking key does not belong to the certificate');
  return { certificate, certPem, keyPem, privateKey, nodeId: certificate.nodeId };
}

/** A fresh identity in memory (what warpgate uses when no certificate is configured). */
export function ephemeralStakingIdentity(): StakingIdentity {
  const { certPem, keyPem } = generateStakingCertificate();
  return loadStakingIdentity(certPem, keyPem);
}
