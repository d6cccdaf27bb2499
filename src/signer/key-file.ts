// Signing with the validator's own BLS key, read from avalanchego's signer.key (the raw 32-byte
// big-endian scalar), and only for messages the policy allows.
import { readFile } from 'node:fs/promises';
import type { BlsBackend, SecretKey } from '../bls/types.js';
import type { SignOutcome, SigningBackend, SigningPolicy, UnsignedMessage } from './types.js';

export const SIGNER_KEY_BYTES = 32;

export class SignerKeyError extends Error {
  override readonly name = 'SignerKeyError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`signer key file ${path}: ${detail}`);
  }
}

/** Reads avalanchego's signer.key: exactly 32 raw bytes. */
export async function readSignerKey(path: string): Promise<Uint8Array> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SignerKeyError(path, code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (err as Error).message})`);
  }
  if (bytes.length !== SIGNER_KEY_BYTES) {
    const looksLikeText = /^[\s0-9a-fA-Fx]+$/.test(bytes.toString('latin1'));
    throw new SignerKeyError(
      path,
      `must hold exactly ${SIGNER_KEY_BYTES} raw bytes (avalanchego's signer.key), found ${bytes.length}` +
        (looksLikeText ? '; it looks like text (hex?), not the raw key' : ''),
    );
  }
  return Uint8Array.from(bytes);
}

/** Parses the scalar with the backend, naming the file if it is not a valid secret key. */
export function secretKeyFromFile(bls: BlsBackend, bytes: Uint8Array, path: string): SecretKey {
  try {
    return bls.secretKeyFromBytes(bytes);
  } catch (err) {
    throw new SignerKeyError(path, `is not a valid BLS secret key (${(err as Error).message})`);
  }
}

export class KeyFileBackend implements SigningBackend {
  private readonly sk: SecretKey;

  constructor(
    secretKey: Uint8Array | SecretKey,
    private readonly bls: BlsBackend,
    private readonly policy: SigningPolicy,
  ) {
    this.sk = secretKey instanceof Uint8Array ? bls.secretKeyFromBytes(secretKey) : secretKey;
  }

  async sign(message: UnsignedMessage, justification: Uint8Array): Promise<SignOutcome> {
    const reason = await this.policy.check(message, justification);
    if (reason !== null) return { kind: 'refused', reason };
    // Uncompressed: what services ask for, at no cost here (the session compresses it for one that does not).
    return { kind: 'signature', signature: this.bls.signatureUncompressed(this.bls.sign(this.sk, message.bytes)) };
  }
}
