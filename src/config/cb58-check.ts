// The config layer imports nothing of ours (design.md), yet a mistyped subnet ID must fail at
// load time with the key named, not later inside the service. So: a standalone check that a
// string is the cb58 form of a 32-byte ID (base58 of the bytes and the last 4 bytes of their sha256).
import { createHash } from 'node:crypto';
import bs58 from 'bs58';

/** Why `text` is not a cb58 32-byte ID, or undefined when it is one. */
export function cb58IdProblem(text: string): string | undefined {
  let raw: Uint8Array;
  try {
    raw = bs58.decode(text);
  } catch {
    return `'${text}' is not base58`;
  }
  if (raw.length !== 36) return `'${text}' is not a cb58 ID (it decodes to ${raw.length} bytes, an ID has 32 plus a 4-byte checksum)`;
  const body = raw.subarray(0, 32);
  const sum = createHash('sha256').update(body).digest().subarray(-4);
  if (!sum.equals(raw.subarray(32))) return `'${text}' has a bad cb58 checksum`;
  return undefined;
}
