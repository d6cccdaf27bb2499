// A token bucket: `perSecond` tokens refill continuously up to `burst`. The signer keeps one per
// connection so a single service cannot make it sign (or ask its node) without bound, and others
// across all connections (limits.ts).

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export const DEFAULT_SIGNER_RATE_LIMIT: RateLimit = { perSecond: 1000, burst: 2000 };

/** Throws a RangeError naming `what` unless perSecond > 0 and burst >= 1. */
export function checkRateLimit(limit: RateLimit, what = 'rate limit'): RateLimit {
  if (!(limit.perSecond > 0 && limit.burst >= 1)) {
    throw new RangeError(`${what} needs perSecond > 0 and burst >= 1, got ${limit.perSecond}/${limit.burst}`);
  }
  return limit;
}

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    checkRateLimit(limit);
    this.tokens = limit.burst;
    this.last = now();
  }

  /** Takes one token; false when the bucket is empty. */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.limit.burst, this.tokens + ((t - this.last) / 1000) * this.limit.perSecond);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
