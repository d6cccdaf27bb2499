// Peer certificates as avalanchego accepts them (staking/parse.go ParseCertificate, which reads
// only as far as the public key, and network/peer/tls_config.go ValidateCertificate): at most
// 2 KiB of DER; an ECDSA key must be an uncompressed point on P-256 (the curve parameters in
// the certificate are not consulted by staking/parse.go, but the TLS layer requires P-256); an
// RSA key must have a 2048- or 4096-bit odd, positive modulus and exponent 65537; any other key
// type is refused. Signatures, validity dates and extensions are not checked (the certificate
// only names a key), and the NodeID is RIPEMD-160(SHA-256(DER)) (ids/node_id.go NodeIDFromCert).
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { p256 } from '@noble/curves/nist.js';
import { nodeIdToString } from '../warp/cb58.js';
import { StakingCertificateError } from './errors.js';
import { MAX_CERTIFICATE_BYTES } from './constants.js';
import { DerReader, decodeOid, positiveIntegerMagnitude, TAG_BIT_STRING, TAG_CONTEXT_0, TAG_INTEGER, TAG_OID, TAG_SEQUENCE } from './der.js';

const OID_RSA = '1.2.840.113549.1.1.1';
const OID_EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const RSA_EXPONENT = 65537n;

export interface StakingCertificate {
  readonly der: Uint8Array;
  /** 20 bytes. */
  readonly nodeIdBytes: Uint8Array;
  /** `NodeID-<cb58>`. */
  readonly nodeId: string;
  readonly keyType: 'ecdsa' | 'rsa';
  readonly publicKey: KeyObject;
}

/** RIPEMD-160(SHA-256(certificate DER)). */
export function nodeIdBytesFromCertificate(der: Uint8Array): Uint8Array {
  return ripemd160(sha256(der));
}

export function nodeIdFromCertificate(der: Uint8Array): string {
  return nodeIdToString(nodeIdBytesFromCertificate(der));
}

function fail(detail: string): never {
  throw new StakingCertificateError(`staking certificate refused: ${detail}`);
}

/** staking/parse.go ParseCertificate: throws StakingCertificateError for what it refuses. */
export function parseStakingCertificate(der: Uint8Array): StakingCertificate {
  if (der.length > MAX_CERTIFICATE_BYTES) fail(`${der.length} bytes is more than ${MAX_CERTIFICATE_BYTES}`);
  const outer = new DerReader(der).readTagged(TAG_SEQUENCE) ?? fail('malformed certificate');
  const tbsBody = new DerReader(outer).readTagged(TAG_SEQUENCE) ?? fail('malformed tbs certificate');
  const tbs = new DerReader(tbsBody);
  if (!tbs.skipOptional(TAG_CONTEXT_0)) fail('malformed version');
  if (tbs.readTagged(TAG_INTEGER) === undefined) fail('malformed serial number');
  if (tbs.readTagged(TAG_SEQUENCE) === undefined) fail('malformed signature algorithm identifier');
  if (tbs.readTagged(TAG_SEQUENCE) === undefined) fail('malformed issuer');
  if (tbs.readTagged(TAG_SEQUENCE) === undefined) fail('malformed validity');
  if (tbs.readTagged(TAG_SEQUENCE) === undefined) fail('malformed subject');
  const spki = new DerReader(tbs.readTagged(TAG_SEQUENCE) ?? fail('malformed subject public key info'));
  const algorithm = new DerReader(spki.readTagged(TAG_SEQUENCE) ?? fail('malformed public key algorithm identifier'));
  const oid = decodeOid(algorithm.readTagged(TAG_OID) ?? fail('malformed oid')) ?? fail('malformed oid');
  const bitString = spki.readTagged(TAG_BIT_STRING) ?? fail('malformed subject public key');
  if (bitString.length === 0 || bitString[0]! > 7 || (bitString.length === 1 && bitString[0] !== 0)) fail('malformed subject public key');
  // Go's BitString.RightAlign: the key bytes of a whole-byte bit string are the bytes after the count.
  if (bitString[0] !== 0) fail('malformed subject public key');
  const keyBytes = bitString.subarray(1);
  const nodeIdBytes = nodeIdBytesFromCertificate(der);
  const base = { der: Uint8Array.from(der), nodeIdBytes, nodeId: nodeIdToString(nodeIdBytes) };
  if (oid === OID_RSA) return { ...base, keyType: 'rsa', publicKey: parseRsaKey(keyBytes) };
  if (oid === OID_EC_PUBLIC_KEY) return { ...base, keyType: 'ecdsa', publicKey: parseP256Point(keyBytes) };
  return fail(`unknown public key algorithm ${oid}`);
}

function parseRsaKey(bytes: Uint8Array): KeyObject {
  const seq = new DerReader(new DerReader(bytes).readTagged(TAG_SEQUENCE) ?? fail('invalid RSA public key'));
  const nBody = seq.readTagged(TAG_INTEGER) ?? fail('invalid RSA modulus');
  const eBody = seq.readTagged(TAG_INTEGER) ?? fail('invalid RSA public exponent');
  const n = positiveIntegerMagnitude(nBody) ?? fail('RSA modulus is not a positive number');
  const eMag = positiveIntegerMagnitude(eBody) ?? fail('unsupported RSA public exponent');
  const nBig = BigInt(`0x${Buffer.from(n).toString('hex') || '0'}`);
  if (nBig <= 0n) fail('RSA modulus is not a positive number');
  const bits = nBig.toString(2).length;
  if (bits !== 2048 && bits !== 4096) fail(`unsupported RSA modulus bitlen: ${bits}`);
  if ((nBig & 1n) === 0n) fail('RSA modulus is an even number');
  const e = BigInt(`0x${Buffer.from(eMag).toString('hex') || '0'}`);
  if (e !== RSA_EXPONENT) fail(`unsupported RSA public exponent: ${e}`);
  return createPublicKey({ key: { kty: 'RSA', n: Buffer.from(n).toString('base64url'), e: 'AQAB' }, format: 'jwk' });
}

function parseP256Point(bytes: Uint8Array): KeyObject {
  // elliptic.Unmarshal: only the uncompressed form 04‖x‖y of a point on the curve.
  if (bytes.length !== 65 || bytes[0] !== 0x04) fail('failed to unmarshal elliptic curve point');
  try {
    p256.Point.fromBytes(bytes).assertValidity();
  } catch {
    fail('failed to unmarshal elliptic curve point');
  }
  const x = Buffer.from(bytes.subarray(1, 33)).toString('base64url');
  const y = Buffer.from(bytes.subarray(33)).toString('base64url');
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x, y }, format: 'jwk' });
}

/**
 * The checks a peer certificate passes in avalanchego's TLS layer before staking/parse.go runs
 * (Go's crypto/x509 must parse it; tls_config.go requires an ECDSA key on P-256), then the
 * staking rules. Throws StakingCertificateError.
 */
export function checkPeerCertificate(der: Uint8Array): StakingCertificate {
  if (der.length > MAX_CERTIFICATE_BYTES) fail(`${der.length} bytes is more than ${MAX_CERTIFICATE_BYTES}`);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(Buffer.from(der));
  } catch {
    fail('not an X.509 certificate');
  }
  const key = x509.publicKey;
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') fail('only P256 is allowed for ECDSA');
  return parseStakingCertificate(der);
}
