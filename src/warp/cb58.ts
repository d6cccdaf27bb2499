// cb58: base58 of the bytes followed by the last 4 bytes of their sha256. IDs, node IDs and
// transaction hashes all use it on the P-Chain's JSON-RPC interface.
import bs58 from 'bs58';
import { sha256 } from '@noble/hashes/sha2.js';
import { WarpFormatError } from './errors.js';
import { bytesEqual, concatBytes, hexToBytes } from './hex.js';

export const ID_LENGTH = 32;
export const NODE_ID_LENGTH = 20;
const NODE_ID_PREFIX = 'NodeID-';

export function cb58Encode(bytes: Uint8Array): string {
  return bs58.encode(concatBytes(bytes, sha256(bytes).subarray(-4)));
}

export function cb58Decode(text: string, what = 'cb58'): Uint8Array {
  if (typeof text !== 'string' || text.length === 0) throw new WarpFormatError(what, 'must be a non-empty cb58 string');
  let raw: Uint8Array;
  try {
    raw = bs58.decode(text);
  } catch {
    throw new WarpFormatError(what, 'is not base58');
  }
  if (raw.length < 4) throw new WarpFormatError(what, 'is too short to carry a checksum');
  const body = raw.subarray(0, raw.length - 4);
  if (!bytesEqual(sha256(body).subarray(-4), raw.subarray(raw.length - 4))) {
    throw new WarpFormatError(what, 'has a bad checksum');
  }
  return Uint8Array.from(body);
}

/** A 32-byte ID as cb58 (blockchain, subnet, transaction, message IDs). */
export function idToString(id: Uint8Array): string {
  return cb58Encode(id);
}

/** Parses a 32-byte ID given as cb58 or as hex (`0x` optional). */
export function parseId(text: string, what = 'id'): Uint8Array {
  if (typeof text !== 'string') throw new WarpFormatError(what, 'must be a string');
  const looksHex = /^(0x)?[0-9a-fA-F]{64}$/.test(text);
  const bytes = looksHex ? hexToBytes(text, what) : cb58Decode(text, what);
  if (bytes.length !== ID_LENGTH) throw new WarpFormatError(what, `must be ${ID_LENGTH} bytes, got ${bytes.length}`);
  return bytes;
}

/** Parses a 32-byte ID given as cb58 only (as the P-Chain prints them). */
export function parseCb58Id(text: string, what = 'id'): Uint8Array {
  const bytes = cb58Decode(text, what);
  if (bytes.length !== ID_LENGTH) throw new WarpFormatError(what, `must be ${ID_LENGTH} bytes, got ${bytes.length}`);
  return bytes;
}

export function nodeIdToString(nodeId: Uint8Array): string {
  return NODE_ID_PREFIX + cb58Encode(nodeId);
}

/** Parses `NodeID-<cb58 of 20 bytes>`. */
export function parseNodeId(text: string, what = 'nodeID'): Uint8Array {
  if (typeof text !== 'string' || !text.startsWith(NODE_ID_PREFIX)) {
    throw new WarpFormatError(what, `must start with ${NODE_ID_PREFIX}`);
  }
  const bytes = cb58Decode(text.slice(NODE_ID_PREFIX.length), what);
  if (bytes.length !== NODE_ID_LENGTH) {
    throw new WarpFormatError(what, `must be ${NODE_ID_LENGTH} bytes, got ${bytes.length}`);
  }
  return bytes;
}

/** The P-Chain's blockchain ID and the Primary Network's subnet ID: 32 zero bytes. */
export const P_CHAIN_ID = new Uint8Array(ID_LENGTH);
export const PRIMARY_NETWORK_ID = P_CHAIN_ID;
