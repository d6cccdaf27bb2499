// Canonical validator sets by (subnet, P-Chain height), and the signing subnet of each source
// chain. Every aggregation needs one set, and fetching plus validating keys is the slow part of
// starting one, so:
// - a set at a fixed height never changes: cached, least recently used evicted beyond maxEntries;
// - height 0 means "current" (platform.getCurrentValidators): cached for a short TTL; after it,
//   up to currentMaxStaleMs, the cached set still answers at once while one background fetch
//   refreshes it (a 1,000-validator set takes ~150 ms to fetch and check: no request should wait
//   for that every few seconds); past that, requests wait for the fetch;
// - concurrent requests for one set share one fetch; a failed fetch is not cached, so the next
//   request tries again. Each request waits with its own AbortSignal (its deadline) and leaves
//   when it aborts; the fetch goes on for the others (SharedCalls). A fetch every request has
//   left goes on to its own timeout, so a set slower than a deadline is cached for the retry, but
//   at most maxEntries such fetches at once: past that, a fetch nobody waits for is cancelled;
// - a height a client chose is refused when it is more than maxLookback heights below the
//   P-Chain's current height (as icm-services' signature aggregator does): rebuilding an old set
//   costs the node dearly and holds its P-Chain lock. The current height is cached like the
//   current set. Heights the service chooses (a destination's epoch, the proposed height) are
//   never refused;
// - the P-Chain's proposed height (platform.getProposedHeight), the height signed at without a
//   destination epoch, is reused for currentTtlMs and never served stale past it;
// - avalanchego answers an empty set for a subnet it does not know, so an empty answer is
//   checked with platform.getSubnet: an unknown subnet is an UnknownSubnetError, not a set;
// - parsed BLS keys are remembered across sets (PublicKeyCache), so refreshing the current set
//   every few seconds does not re-run thousands of subgroup checks.
import type { BlsBackend } from '../bls/types.js';
import { P_CHAIN_ID, PRIMARY_NETWORK_ID } from '../warp/cb58.js';
import { bytesEqual, bytesToHex } from '../warp/hex.js';
import { canonicalSet, type CanonicalSet, type ValidatorEntry } from './canonical-set.js';
import { LookbackExceededError } from './errors.js';
import { DEFAULT_KEY_CACHE_ENTRIES, PublicKeyCache } from './key-cache.js';
import { LruMap } from './lru.js';
import { SharedCalls } from './shared-calls.js';

interface CallOptions {
  signal?: AbortSignal;
}

/**
 * What the cache needs from the P-Chain (node/pchain.ts PChainClient provides it; the service
 * wires it in). Each call honours `signal`.
 */
export interface ValidatorSetSource {
  getHeight(opts?: CallOptions): Promise<number>;
  getProposedHeight(opts?: CallOptions): Promise<number>;
  getCurrentValidators(subnetId: Uint8Array, opts?: CallOptions): Promise<ValidatorEntry[]>;
  getValidatorsAt(height: number | 'proposed', subnetId: Uint8Array, opts?: CallOptions): Promise<ValidatorEntry[]>;
  validatedBy(blockchainId: Uint8Array, opts?: CallOptions): Promise<Uint8Array>;
  /** Rejects (UnknownSubnetError) when the subnet does not exist; the result is not used. */
  getSubnet(subnetId: Uint8Array, opts?: CallOptions): Promise<unknown>;
}

/** How a set is asked for. */
interface SetRequest {
  /** The caller's deadline: the caller stops waiting when it aborts (rejecting with its reason). */
  signal?: AbortSignal;
  /**
   * The height was chosen by a client: refused (LookbackExceededError) when it is more than
   * maxLookback heights below the current one. Heights the service chooses are not checked.
   */
  chosenByClient?: boolean;
}

/** icm-services' signature aggregator default (max-p-chain-lookback). */
const DEFAULT_MAX_LOOKBACK = 1000;

interface ValidatorSetCacheOptions {
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
  /** Oldest client-chosen height accepted, in heights below the current one; 0: no bound. Default 1000. */
  maxLookback?: number;
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
  private readonly maxLookback: number;
  private readonly atHeight: LruMap<string, CanonicalSet>;
  private readonly current: LruMap<string, { set: CanonicalSet; expiresAt: number; staleUntil: number }>;
  private readonly setsInFlight: SharedCalls<CanonicalSet>;
  private readonly subnets: LruMap<string, Uint8Array>;
  private readonly subnetsInFlight: SharedCalls<Uint8Array>;
  /** The P-Chain's current height, for the lookback bound: one value, kept like the current set. */
  private tip: { height: number; expiresAt: number; staleUntil: number } | undefined;
  private readonly tipInFlight = new SharedCalls<number>(1);
  /** The P-Chain's proposed height, reused for currentTtlMs. */
  private proposed: { height: number; expiresAt: number } | undefined;
  private readonly proposedInFlight = new SharedCalls<number>(1);

  constructor(options: ValidatorSetCacheOptions) {
    this.client = options.client;
    this.bls = options.bls;
    this.currentTtlMs = options.currentTtlMs ?? 2000;
    this.currentMaxStaleMs = Math.max(this.currentTtlMs, options.currentMaxStaleMs ?? 30_000);
    this.now = options.now ?? Date.now;
    this.maxLookback = options.maxLookback ?? DEFAULT_MAX_LOOKBACK;
    if (!Number.isSafeInteger(this.maxLookback) || this.maxLookback < 0) {
      throw new RangeError(`maxLookback must be a non-negative integer, got ${this.maxLookback}`);
    }
    const maxEntries = options.maxEntries ?? 64;
    this.setsInFlight = new SharedCalls(maxEntries);
    this.subnetsInFlight = new SharedCalls(maxEntries);
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
   * The canonical set of `subnetId` at `pChainHeight` (0 = current). Rejects with the source's
   * error (the node client's NodeError, UnfinalizedHeightError above the tip, UnknownSubnetError),
   * LookbackExceededError, a ValidatorSetError when the P-Chain's answer is not a valid set, or
   * the reason of `request.signal` once it aborts.
   */
  async get(subnetId: Uint8Array, pChainHeight: number, request: SetRequest = {}): Promise<CanonicalSet> {
    if (!Number.isSafeInteger(pChainHeight) || pChainHeight < 0) {
      throw new RangeError(`pChainHeight must be a non-negative integer, got ${pChainHeight}`);
    }
    const { signal } = request;
    if (pChainHeight > 0 && request.chosenByClient && this.maxLookback > 0) await this.checkLookback(pChainHeight, signal);
    const key = `${bytesToHex(subnetId)}:${pChainHeight}`;
    if (pChainHeight === 0) {
      const hit = this.current.get(key);
      const now = this.now();
      if (hit && hit.expiresAt > now) return hit.set;
      if (hit && hit.staleUntil > now) {
        // Refresh in the background; a failure leaves the stale set until staleUntil.
        this.setsInFlight.detach(key, (s) => this.fetchSet(key, subnetId, 0, s));
        return hit.set;
      }
    } else {
      const hit = this.atHeight.get(key);
      if (hit) return hit;
    }
    return this.setsInFlight.join(key, (s) => this.fetchSet(key, subnetId, pChainHeight, s), signal);
  }

  private async fetchSet(key: string, subnetId: Uint8Array, pChainHeight: number, signal: AbortSignal): Promise<CanonicalSet> {
    const subnet = Uint8Array.from(subnetId);
    const entries =
      pChainHeight === 0
        ? await this.client.getCurrentValidators(subnet, { signal })
        : await this.client.getValidatorsAt(pChainHeight, subnet, { signal });
    // An unknown subnet and a subnet without validators at that height both read as empty.
    if (entries.length === 0 && !bytesEqual(subnet, PRIMARY_NETWORK_ID)) await this.client.getSubnet(subnet, { signal });
    const set = canonicalSet(entries, this.bls, this.keys);
    const now = this.now();
    if (pChainHeight === 0) this.current.set(key, { set, expiresAt: now + this.currentTtlMs, staleUntil: now + this.currentMaxStaleMs });
    else this.atHeight.set(key, set);
    return set;
  }

  private async checkLookback(height: number, signal: AbortSignal | undefined): Promise<void> {
    const tip = await this.currentHeight(signal);
    if (height < tip - this.maxLookback) throw new LookbackExceededError(height, tip, this.maxLookback);
  }

  /** The P-Chain's current height: fresh for currentTtlMs, then served while refreshed until currentMaxStaleMs. */
  private async currentHeight(signal: AbortSignal | undefined): Promise<number> {
    const now = this.now();
    const known = this.tip;
    if (known && known.expiresAt > now) return known.height;
    const fetchTip = async (s: AbortSignal): Promise<number> => {
      const height = await this.client.getHeight({ signal: s });
      const at = this.now();
      // Heights only grow: an answer from a lagging node never lowers the bound.
      const best = Math.max(height, this.tip?.height ?? 0);
      this.tip = { height: best, expiresAt: at + this.currentTtlMs, staleUntil: at + this.currentMaxStaleMs };
      return best;
    };
    if (known && known.staleUntil > now) {
      this.tipInFlight.detach('tip', fetchTip);
      return known.height;
    }
    return this.tipInFlight.join('tip', fetchTip, signal);
  }

  /**
   * platform.getProposedHeight: the height a chain verifies against without epochs. Reused for
   * currentTtlMs and never past it: a set read at an old height puts signers' bits where the
   * destination no longer has them once a validator has joined or left.
   */
  async proposedHeight(request: { signal?: AbortSignal } = {}): Promise<number> {
    const known = this.proposed;
    if (known && known.expiresAt > this.now()) return known.height;
    return this.proposedInFlight.join(
      'proposed',
      async (signal) => {
        const height = await this.client.getProposedHeight({ signal });
        // Heights only grow: an answer from a lagging node never moves it back.
        const best = Math.max(height, this.proposed?.height ?? 0);
        this.proposed = { height: best, expiresAt: this.now() + this.currentTtlMs };
        return best;
      },
      request.signal,
    );
  }

  /**
   * The subnet whose validators sign a source chain's messages by default
   * (platform.validatedBy). The P-Chain itself is validated by the Primary Network. A chain's
   * subnet never changes, so answers are kept (bounded); failures are not.
   */
  async signingSubnetFor(sourceChainId: Uint8Array, request: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    if (bytesEqual(sourceChainId, P_CHAIN_ID)) return Uint8Array.from(PRIMARY_NETWORK_ID);
    const key = bytesToHex(sourceChainId);
    const hit = this.subnets.get(key);
    if (hit) return Uint8Array.from(hit);
    const chain = Uint8Array.from(sourceChainId);
    const subnet = await this.subnetsInFlight.join(
      key,
      async (signal) => {
        const answer = await this.client.validatedBy(chain, { signal });
        this.subnets.set(key, answer);
        return answer;
      },
      request.signal,
    );
    return Uint8Array.from(subnet);
  }
}
