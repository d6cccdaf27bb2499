// Staking certificates for the devnet validators that run as simulated avalanchego nodes: a
// node's NodeID is the hash of its certificate (RIPEMD-160(SHA-256(DER))), so such a validator's
// NodeID in the genesis must come from a certificate it holds. Made from the seed like every
// other devnet key: an ECDSA P-256 key derived from it, and the self-signed certificate signed
// deterministically (RFC 6979, @noble/curves), so one seed always gives the same NodeIDs.
import { createECDH, createPrivateKey } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { selfSignedCertificatePem } from '../../p2p/index.js';
import { GENESIS_TIME } from './history.js';
import { derive } from './keys.js';

export interface StakingKeyPair {
  certPem: string;
  keyPem: string;
}

const P256_ORDER = p256.Point.CURVE().n;

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** The staking certificate and key of `label` under `seed`, the same every time. */
export function deriveStakingKeyPair(seed: string, ...label: (string | number)[]): StakingKeyPair {
  let secret: Uint8Array | undefined;
  for (let attempt = 0; !secret; attempt++) {
    const candidate = derive(seed, ...label, 'staking', attempt);
    const scalar = BigInt(`0x${Buffer.from(candidate).toString('hex')}`);
    if (scalar !== 0n && scalar < P256_ORDER) secret = candidate;
  }
  // node:crypto computes the public point natively (noble would take ~1 ms).
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(secret);
  const point = ecdh.getPublicKey();
  const privateKey = createPrivateKey({
    key: { kty: 'EC', crv: 'P-256', d: base64url(secret), x: base64url(point.subarray(1, 33)), y: base64url(point.subarray(33, 65)) },
    format: 'jwk',
  });
  const certPem = selfSignedCertificatePem(privateKey, new Date(Number(GENESIS_TIME) * 1000), (tbs) => p256.sign(tbs, secret, { format: 'der' }));
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
