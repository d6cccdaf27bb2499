// Parsed BLS public keys by their compressed hex. Parsing a key means decompressing it and
// checking subgroup membership, which costs far more than a map lookup (about 0.05 ms with blst,
// milliseconds with noble). The current validator set is refetched every few seconds and is
// almost always the same keys, so remembering parsed keys makes each refresh nearly free.
import type { BlsBackend, PublicKey } from '../bls/types.js';
import { LruMap } from './lru.js';

export const DEFAULT_KEY_CACHE_ENTRIES = 16_384;

export class PublicKeyCache {
  private readonly keys: LruMap<string, { pk: PublicKey; uncompressed: Uint8Array }>;

  constructor(
    readonly bls: BlsBackend,
    maxEntries = DEFAULT_KEY_CACHE_ENTRIES,
  ) {
    this.keys = new LruMap(maxEntries);
  }

  get size(): number {
    return this.keys.size;
  }

  /**
   * The parsed key and its 96-byte uncompressed form. Throws the backend's BlsError for bytes
   * that are not a valid key; failures are not remembered.
   */
  parse(compressedHex: string, bytes: Uint8Array): { pk: PublicKey; uncompressed: Uint8Array } {
    const hit = this.keys.get(compressedHex);
    if (hit) return hit;
    const pk = this.bls.publicKeyFromBytes(bytes);
    const parsed = { pk, uncompressed: this.bls.publicKeyUncompressed(pk) };
    this.keys.set(compressedHex, parsed);
    return parsed;
  }
}
