// warpgate's identity on the avalanchego peer network: the staking certificate and key of
// p2p.tlsCertFile / p2p.tlsKeyFile (its NodeID is what a validatorOnly subnet's allowedNodes must
// list), or a new one each start; and the BLS key of p2p.blsKeyFile (avalanchego's signer.key,
// 32 raw bytes) that signs the address it claims, or a new one. A file that cannot be used is a
// ConfigError naming its key, so `serve` exits 2 at once instead of running without the identity
// the operator pinned.
import { readFileSync } from 'node:fs';
import type { BlsBackend, SecretKey } from '../bls/types.js';
import { ConfigError, type Config } from '../config/config.js';
import { ephemeralStakingIdentity, loadStakingIdentity, type StakingIdentity } from '../p2p/index.js';

const SIGNER_KEY_BYTES = 32;

export interface P2PIdentity {
  identity: StakingIdentity;
  /** Absent: the transport makes a throwaway key. */
  blsSecretKey?: SecretKey;
  /** True when the certificate came from the config (a stable NodeID). */
  pinned: boolean;
}

function readFile(key: string, path: string, encoding?: 'utf8'): string | Buffer {
  try {
    return encoding ? readFileSync(path, encoding) : readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError([`${key}: ${path} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (err as Error).message})`}`]);
  }
}

export function loadP2PIdentity(p2p: Config['p2p'], bls: BlsBackend): P2PIdentity {
  let identity: StakingIdentity;
  let pinned = false;
  if (p2p.tlsCertFile !== null && p2p.tlsKeyFile !== null) {
    const certPem = readFile('p2p.tlsCertFile', p2p.tlsCertFile, 'utf8') as string;
    const keyPem = readFile('p2p.tlsKeyFile', p2p.tlsKeyFile, 'utf8') as string;
    try {
      identity = loadStakingIdentity(certPem, keyPem);
    } catch (err) {
      throw new ConfigError([`p2p.tlsCertFile: ${p2p.tlsCertFile} with ${p2p.tlsKeyFile}: ${(err as Error).message}`]);
    }
    pinned = true;
  } else {
    identity = ephemeralStakingIdentity();
  }
  if (p2p.blsKeyFile === null) return { identity, pinned };
  const bytes = readFile('p2p.blsKeyFile', p2p.blsKeyFile) as Buffer;
  if (bytes.length !== SIGNER_KEY_BYTES) {
    throw new ConfigError([`p2p.blsKeyFile: ${p2p.blsKeyFile} must hold exactly ${SIGNER_KEY_BYTES} raw bytes (avalanchego's signer.key), found ${bytes.length}`]);
  }
  try {
    return { identity, pinned, blsSecretKey: bls.secretKeyFromBytes(Uint8Array.from(bytes)) };
  } catch (err) {
    throw new ConfigError([`p2p.blsKeyFile: ${p2p.blsKeyFile} is not a valid BLS secret key (${(err as Error).message})`]);
  }
}
