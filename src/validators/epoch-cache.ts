// Destination chains' current epochs (ACP-181), as their nodes report them
// (proposervm.getCurrentEpoch, read by the injected `readEpoch`), kept per chain:
// - until the epoch may end: startTime + D, less avalanchego's maxSkew (a sealing block may come
//   that much early), D being info.upgrades' graniteEpochDuration or its configured override;
// - an idle chain keeps reporting an epoch past its end (no block has sealed it), and one before
//   Granite the zero epoch; those, and any epoch while D is unknown, are kept `minRefreshMs`, so
//   a busy destination costs its node one call per interval, not one per request;
// - one read in flight per chain, each caller waiting with its own deadline (SharedCalls); a read
//   every caller has left goes on (up to maxEntries of them) so its answer serves the next one;
// - a failed read is not kept: the next request asks again;
// - at most maxEntries chains, the least recently asked forgotten first.
import { bytesToHex } from '../warp/hex.js';
import { epochCacheDeadlineMs, isGraniteEpoch, MAX_CLOCK_SKEW_MS } from './epoch.js';
import { LruMap } from './lru.js';
import { SharedCalls } from './shared-calls.js';

/** An epoch as proposervm.getCurrentEpoch reports it (node/epoch-results.ts ProposerEpoch). */
export interface ChainEpoch {
  /** 0 before Granite. */
  number: number;
  /** Unix seconds. */
  startTime: number;
  pChainHeight: number;
}

interface EpochCacheOptions {
  /** The chain's current epoch; rejects with the reason of `signal` once it aborts. */
  readEpoch(chainId: Uint8Array, signal: AbortSignal): Promise<ChainEpoch>;
  /** The epoch duration D in milliseconds, or null while it is not known. Must not reject. */
  epochDurationMs(signal: AbortSignal): Promise<number | null>;
  /** How long an epoch past its end, a zero epoch, or any epoch while D is unknown is kept. */
  minRefreshMs: number;
  /** Chains kept. */
  maxEntries: number;
  /** Clock (unix ms), for tests. */
  now?: () => number;
}

export class EpochCache {
  private readonly kept: LruMap<string, { epoch: ChainEpoch; until: number }>;
  private readonly reads: SharedCalls<ChainEpoch>;
  private readonly now: () => number;

  constructor(private readonly opts: EpochCacheOptions) {
    if (!Number.isSafeInteger(opts.minRefreshMs) || opts.minRefreshMs < 0) throw new RangeError(`minRefreshMs must be a non-negative integer, got ${opts.minRefreshMs}`);
    this.kept = new LruMap(opts.maxEntries);
    this.reads = new SharedCalls(opts.maxEntries);
    this.now = opts.now ?? Date.now;
  }

  /** The chain's current epoch, read or kept; rejects with what the read rejects with, or the reason of `signal`. */
  get(chainId: Uint8Array, request: { signal?: AbortSignal } = {}): Promise<ChainEpoch> {
    const key = bytesToHex(chainId);
    const hit = this.kept.get(key);
    if (hit && hit.until > this.now()) return Promise.resolve(hit.epoch);
    const chain = Uint8Array.from(chainId);
    return this.reads.join(key, (signal) => this.read(key, chain, signal), request.signal);
  }

  private async read(key: string, chainId: Uint8Array, signal: AbortSignal): Promise<ChainEpoch> {
    const [epoch, durationMs] = await Promise.all([this.opts.readEpoch(chainId, signal), this.opts.epochDurationMs(signal)]);
    const now = this.now();
    const until =
      isGraniteEpoch(epoch) && durationMs !== null
        ? epochCacheDeadlineMs(epoch, durationMs, now, this.opts.minRefreshMs, MAX_CLOCK_SKEW_MS)
        : now + this.opts.minRefreshMs;
    this.kept.set(key, { epoch, until });
    return epoch;
  }
}
