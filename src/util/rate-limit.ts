// A token bucket per key (an API key or a client IP). Each bucket holds at most a minute's
// budget and refills continuously, so a client may burst up to its per-minute limit and then
// proceeds at the steady rate. The number of buckets is capped: the least recently used bucket
// is dropped first, which can only ever give its owner a fresh (full) budget, never a smaller one.

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

/** A per-client budget: this process's RateLimiter, or one shared by replicas (shared-state/). */
export interface Budget {
  take(key: string, cost?: number): TakeResult | Promise<TakeResult>;
}

/** Makes the budget named `name` (its keys are separate from other budgets') at `requestsPerMinute`. */
export type BudgetFactory = (name: string, requestsPerMinute: number) => Budget;

/** Budgets kept in this process. */
export const localBudgets: BudgetFactory = (_name, requestsPerMinute) => new RateLimiter({ requestsPerMinute });

interface RateLimiterOptions {
  /** Steady rate and burst size. A positive number. */
  requestsPerMinute: number;
  /** Buckets tracked at once; default 100 000. */
  maxKeys?: number;
  /** Clock in milliseconds; tests pass a fake one. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter {
  readonly requestsPerMinute: number;
  private readonly capacity: number;
  private readonly perMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;
  // Map iteration order is insertion order; re-inserting on use keeps it least-recently-used first.
  private readonly buckets = new Map<string, Bucket>();

  constructor(opts: RateLimiterOptions) {
    if (!(Number.isFinite(opts.requestsPerMinute) && opts.requestsPerMinute > 0)) {
      throw new RangeError(`requestsPerMinute must be a positive number, got ${opts.requestsPerMinute}`);
    }
    const maxKeys = opts.maxKeys ?? 100_000;
    if (!(Number.isInteger(maxKeys) && maxKeys > 0)) throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
    this.requestsPerMinute = opts.requestsPerMinute;
    this.capacity = opts.requestsPerMinute;
    this.perMs = opts.requestsPerMinute / 60_000;
    this.maxKeys = maxKeys;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Spends `cost` tokens of `key`'s budget (default 1). A cost above the burst size is charged as
   * the whole burst, so a large batch empties the bucket instead of being refused forever.
   */
  take(key: string, cost = 1): TakeResult {
    const need = Math.min(Math.max(cost, 0), this.capacity);
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
      bucket.tokens = Math.min(this.capacity, bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.perMs);
      bucket.updatedAt = now;
    } else {
      bucket = { tokens: this.capacity, updatedAt: now };
      while (this.buckets.size >= this.maxKeys) {
        const oldest = this.buckets.keys().next().value;
        if (oldest === undefined) break;
        this.buckets.delete(oldest);
      }
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens + 1e-9 >= need) {
      bucket.tokens = Math.max(0, bucket.tokens - need);
      return { ok: true };
    }
    const waitMs = (need - bucket.tokens) / this.perMs;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Buckets currently tracked. */
  get size(): number {
    return this.buckets.size;
  }

  clear(): void {
    this.buckets.clear();
  }
}
