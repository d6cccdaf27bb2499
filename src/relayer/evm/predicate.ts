// A signed Warp message travels to its destination as a *predicate*: an access-list tuple whose
// address is the Warp precompile and whose storage keys are the message's bytes, then one 0xff
// delimiter, zero-padded to a multiple of 32 bytes and cut into 32-byte keys (avalanchego
// vms/evm/predicate/predicate.go; the delimiter is there even when the length is already a
// multiple of 32, so the end of the message is never ambiguous).
import type { Hex } from '../ports.js';
import { bytesTo0xHex, hexToBytes } from '../../warp/index.js';
import { WARP_PRECOMPILE_ADDRESS } from './abi.js';

const CHUNK = 32;
const DELIMITER = 0xff;

/** How many 32-byte keys a message of `length` bytes takes (the Warp precompile charges per key). */
export function predicateChunks(length: number): number {
  return Math.ceil((length + 1) / CHUNK);
}

/** The storage keys that carry `message` (bytes + 0xff, zero-padded to 32-byte keys). */
export function packPredicate(message: Uint8Array): Hex[] {
  const padded = new Uint8Array(predicateChunks(message.length) * CHUNK);
  padded.set(message);
  padded[message.length] = DELIMITER;
  const keys: Hex[] = [];
  for (let at = 0; at < padded.length; at += CHUNK) keys.push(bytesTo0xHex(padded.subarray(at, at + CHUNK)) as Hex);
  return keys;
}

/** The bytes a predicate carries, or null when its keys are not a well-formed packing. */
export function unpackPredicate(keys: readonly Hex[]): Uint8Array | null {
  const bytes = new Uint8Array(keys.length * CHUNK);
  for (const [i, key] of keys.entries()) {
    const chunk = hexToBytes(key);
    if (chunk.length !== CHUNK) return null;
    bytes.set(chunk, i * CHUNK);
  }
  let end = bytes.length - 1;
  while (end >= 0 && bytes[end] === 0) end--;
  // The delimiter must be the last non-zero byte, and within the last key.
  if (end < 0 || bytes[end] !== DELIMITER || bytes.length - end > CHUNK) return null;
  return bytes.slice(0, end);
}

/** The access list of a delivery: the signed message as Warp predicate 0. */
export function warpAccessList(signedMessage: Hex): { address: Hex; storageKeys: Hex[] }[] {
  return [{ address: WARP_PRECOMPILE_ADDRESS, storageKeys: packPredicate(hexToBytes(signedMessage)) }];
}
