// avalanchego's bloom filter (utils/bloom): wire format numHashes u8 ‖ numHashes × seed u64 BE ‖
// entries (≥ 1 byte). Parse refuses 0 or more than 16 hashes and a filter without entries
// (read_filter.go). Membership: for each seed, hash = rotl64(hash, 17) ^ seed, bit hash mod
// (8 × entries) (filter.go); the hash of a key is the first 8 bytes (BE) of SHA-256(key ‖ salt)
// (hasher.go). Peers are keyed by their gossip ID, SHA-256(nodeID ‖ timestamp u64 BE)
// (utils/ips/claimed_ip_port.go).
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { P2PProtocolError } from './errors.js';

const MIN_HASHES = 1;
const MAX_HASHES = 16;
const MIN_ENTRIES = 1;
const MASK64 = (1n << 64n) - 1n;

interface BloomFilter {
  readonly seeds: readonly bigint[];
  readonly entries: Uint8Array;
}

export function parseBloomFilter(bytes: Uint8Array): BloomFilter {
  if (bytes.length === 0) throw new P2PProtocolError('bad-get-peer-list', 'bloom filter: invalid num hashes');
  const numHashes = bytes[0]!;
  const entriesOffset = 1 + numHashes * 8;
  if (numHashes < MIN_HASHES) throw new P2PProtocolError('bad-get-peer-list', `bloom filter: too few hashes: ${numHashes}`);
  if (numHashes > MAX_HASHES) throw new P2PProtocolError('bad-get-peer-list', `bloom filter: too many hashes: ${numHashes}`);
  if (bytes.length < entriesOffset + MIN_ENTRIES) throw new P2PProtocolError('bad-get-peer-list', 'bloom filter: too few entries');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const seeds = Array.from({ length: numHashes }, (_, i) => view.getBigUint64(1 + i * 8));
  return { seeds, entries: bytes.slice(entriesOffset) };
}

export function marshalBloomFilter(filter: BloomFilter): Uint8Array {
  const out = new Uint8Array(1 + filter.seeds.length * 8 + filter.entries.length);
  out[0] = filter.seeds.length;
  const view = new DataView(out.buffer);
  filter.seeds.forEach((seed, i) => view.setBigUint64(1 + i * 8, seed));
  out.set(filter.entries, 1 + filter.seeds.length * 8);
  return out;
}

/** A filter with random seeds and `numEntries` zero bytes. */
export function newBloomFilter(numHashes: number, numEntries: number): BloomFilter {
  if (!Number.isInteger(numHashes) || numHashes < MIN_HASHES || numHashes > MAX_HASHES) throw new RangeError(`numHashes must be 1..16, got ${numHashes}`);
  if (!Number.isInteger(numEntries) || numEntries < MIN_ENTRIES) throw new RangeError(`numEntries must be >= 1, got ${numEntries}`);
  const raw = randomBytes(numHashes * 8);
  const seeds = Array.from({ length: numHashes }, (_, i) => raw.readBigUInt64BE(i * 8));
  return { seeds, entries: new Uint8Array(numEntries) };
}

function rotl64(x: bigint, n: bigint): bigint {
  return ((x << n) | (x >> (64n - n))) & MASK64;
}

/** Adds a hash in place; true if it was not already present. */
export function bloomAdd(filter: BloomFilter, hash: bigint): boolean {
  const numBits = BigInt(filter.entries.length * 8);
  let accumulator = 1;
  let h = hash;
  for (const seed of filter.seeds) {
    h = rotl64(h, 17n) ^ seed;
    const index = h % numBits;
    const byteIndex = Number(index / 8n);
    const bitIndex = Number(index % 8n);
    accumulator &= filter.entries[byteIndex]! >> bitIndex;
    filter.entries[byteIndex]! |= 1 << bitIndex;
  }
  return accumulator === 0;
}

export function bloomContains(filter: BloomFilter, hash: bigint): boolean {
  const numBits = BigInt(filter.entries.length * 8);
  let accumulator = 1;
  let h = hash;
  for (let i = 0; i < filter.seeds.length && accumulator !== 0; i++) {
    h = rotl64(h, 17n) ^ filter.seeds[i]!;
    const index = h % numBits;
    accumulator &= filter.entries[Number(index / 8n)]! >> Number(index % 8n);
  }
  return accumulator !== 0;
}

/** utils/bloom/hasher.go Hash. */
export function bloomHash(key: Uint8Array, salt: Uint8Array): bigint {
  const h = new Uint8Array(key.length + salt.length);
  h.set(key);
  h.set(salt, key.length);
  return new DataView(sha256(h).buffer).getBigUint64(0);
}

/** utils/ips/claimed_ip_port.go GossipID: SHA-256(nodeID ‖ timestamp u64 BE). */
export function gossipId(nodeIdBytes: Uint8Array, timestamp: bigint): Uint8Array {
  const pre = new Uint8Array(nodeIdBytes.length + 8);
  pre.set(nodeIdBytes);
  new DataView(pre.buffer).setBigUint64(nodeIdBytes.length, timestamp);
  return sha256(pre);
}

/** The known-peers filter and salt warpgate sends: empty (it knows no validator IPs to skip). */
export function emptyKnownPeers(): { filter: Uint8Array; salt: Uint8Array } {
  return { filter: marshalBloomFilter(newBloomFilter(1, 1)), salt: Uint8Array.from(randomBytes(32)) };
}
