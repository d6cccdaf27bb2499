// Canonical validator sets by (subnet, P-Chain height), and the signing subnet of each source
// chain. Every aggregation needs one set, and fetching plus validating keys is the slow part of
// starting one, so:
// - a set at a fixed height never changes: cached, least recently used evicted beyond maxEntries;
// - height 0 means "current" (platform.getCurrentValidators): cached for a short TTL; after it,
//   up to currentMaxStaleMs, the cached set still answers at once while one background fetch
//   refreshes it (a 1,000-validator set takes ~150 ms to fetch and check: no request should wait
//   for that every few seconds); past that, requests wait for the fetch;
// - concurrent requests for one set share one fetch; a failed fetch is not cached, so the next
//   request tries again;
// - parsed BLS keys are remembered across sets (PublicKeyCache), so refreshing the current set
//   every few seconds does not re-run thousands of subgroup checks.
import type { BlsBackend } from '../bls/types.js';
import { P_CHAIN_ID, PRIMARY_NETWORK_ID } from '../warp/cb58.js';
import { bytesEqual, bytesToHex } from '../warp/hex.js';
import { canonicalSet, type CanonicalSet, type ValidatorEntry } from './canonical-set.js';
import { DEFAULT_KEY_CACHE_ENTRIES, PublicKeyCache } from './key-cache.js';
import { LruMap } from './lru.js';

/** What the cache needs from the P-Chain; PChainClient provides it. */
export interface ValidatorSetSource {
  getCurrentValidators(subnetId: Uint8Array): Promise<ValidatorEntry[]>;
  getValidatorsAt(height: number | 'proposed', subnetId: Uint8Array): Promise<ValidatorEntry[]>;
  validatedBy(blockchainId: Uint8Array): Promise<Uint8Array>;
}

export interface ValidatorSetCacheOptions {
  client: ValidatorSetSource;
  bls: BlsBackend;
  /** How long the current set (height 0) is reused. Default 2000 ms. */
  currentTtlMs?: number;
  /** How long an expired current set may still answer while it is refreshed. Default 30000 ms. */
  currentMaxStaleMs?: number;
  /** Sets kept per kind (fixed heights; current sets). Default 64. */
  maxEntries?: number;
  /** Source chain → signing subnet mappings kept. Default 4096. */
  maxSubnetEntries?: number;
  /** Parsed public keys kept. Default 16384. */
  maxKeyEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export class ValidatorSetCache {
  private readonly client: ValidatorSetSource;
  private readonly bls: BlsBackend;
  private readonly currentTtlMs: number;
  private readonly currentMaxStaleMs: number;
  private readonly now: () => number;
  private readonly keys: PublicKeyCache;
  private readonly atHeight: LruMap<string, CanonicalSet>;
  private readonly current: LruMap<string, { set: CanonicalSet; expiresAt: number; staleUntil: number }>;
  private readonly setsInFlight = new Map<string, Promise<CanonicalSet>>();
  private readonly subnets: LruMap<string, Uint8Array>;
  private readonly subnetsInFlight = new Map<string, Promise<Uint8Array>>();

  constructor(options: ValidatorSetCacheOptions) {
    this.client = options.client;
    this.bls = options.bls;
    this.currentTtlMs = options.currentTtlMs ?? 2000;
    this.currentMaxStaleMs = Math.max(this.currentTtlMs, options.currentMaxStaleMs ?? 30_000);
    this.now = options.now ?? Date.now;
    const maxEntries = options.maxEntries ?? 64;
    this.keys = new PublicKeyCache(options.bls, options.maxKeyEntries ?? DEFAULT_KEY_CACHE_ENTRIES);
    this.atHeight = new LruMap(maxEntries);
    this.current = new LruMap(maxEntries);
    this.subnets = new LruMap(options.maxSubnetEntries ?? 4096);
  }

  /** Sets held now (fixed heights + current), for tests and metrics. */
  get size(): number {
    return this.atHeight.size + this.current.size;
  }

  /**
   * The canonical set of `subnetId` at `pChainHeight` (0 = current). Rejects with the client's
   * error (PChainError) or a ValidatorSetError when the P-Chain's answer is not a valid set.
   */
  get(subnetId: Uint8Array, pChainHeight: number): Promise<CanonicalSet> {
    if (!Number.isSafeInteger(pChainHeight) || pChainHeight < 0) {
      return Promise.reject(new RangeError(`pChainHeight must be a non-negative integer, got ${pChainHeight}`));
    }
    const key = `${bytesToHex(subnetId)}:${pChainHeight}`;
    if (pChainHeight === 0) {
      const hit = this.current.get(key);
      const now = this.now();
      if (hit && hit.expiresAt > now) return Promise.resolve(hit.set);
      if (hit && hit.staleUntil > now) {
        // Refresh in the background; a failure leaves the stale set until staleUntil.
        if (!this.setsInFlight.has(key)) this.fetchSet(key, subnetId, 0).catch(() => undefined);
        return Promise.resolve(hit.set);
      }
    } else {
      const hit = this.atHeight.get(key);
      if (hit) return Promise.resolve(hit);
    }
    const pending = this.setsInFlight.get(key);
    if (pending) return pending;
    return this.fetchSet(key, subnetId, pChainHeight);
  }

  private fetchSet(key: string, subnetId: Uint8Array, pChainHeight: number): Promise<CanonicalSet> {
    const subnet = Uint8Array.from(subnetId);
    const fetch = (async () => {
      const entries =
        pChainHeight === 0
          ? await this.client.getCurrentValidators(subnet)
          : await this.client.getValidatorsAt(pChainHeight, subnet);
      const set = canonicalSet(entries, this.bls, this.keys);
      const now = this.now();
      if (pChainHeight === 0) this.current.set(key, { set, expiresAt: now + this.currentTtlMs, staleUntil: now + this.currentMaxStaleMs });
      else this.atHeight.set(key, set);
      return set;
    })().finally(() => this.setsInFlight.delete(key));
    this.setsInFlight.set(key, fetch);
    return fetch;
  }

  /**
   * The subnet whose validators sign a source chain's messages by default
   * (platform.validatedBy). The P-Chain itself is validated by the Primary Network. A chain's
   * subnet never changes, so answers are kept (bounded); failures are not.
   */
  signingSubnetFor(sourceChainId: Uint8Array): Promise<Uint8Array> {
    if (bytesEqual(sourceChainId, P_CHAIN_ID)) return Promise.resolve(Uint8Array.from(PRIMARY_NETWORK_ID));
    const key = bytesToHex(sourceChainId);
    const hit = this.subnets.get(key);
    if (hit) return Promise.resolve(Uint8Array.from(hit));
    const pending = this.subnetsInFlight.get(key);
    if (pending) return pending.then((s) => Uint8Array.from(s));

    const fetch = this.client
      .validatedBy(Uint8Array.from(sourceChainId))
      .then((subnet) => {
        this.subnets.set(key, subnet);
        return subnet;
      })
      .finally(() => this.subnetsInFlight.delete(key));
    this.subnetsInFlight.set(key, fetch);
    return fetch.then((s) => Uint8Array.from(s));
  }
}
