// Reconnect delays: exponential with "full jitter" (uniform in [0, min(max, min·2^attempt)]), so
// signers that lost the service at the same moment do not all come back at the same instant.

export interface BackoffOptions {
  minMs: number;
  maxMs: number;
}

export const DEFAULT_RECONNECT: BackoffOptions = { minMs: 500, maxMs: 30_000 };

export function validateBackoff(opts: BackoffOptions): BackoffOptions {
  if (!(Number.isFinite(opts.minMs) && opts.minMs > 0 && Number.isFinite(opts.maxMs) && opts.maxMs >= opts.minMs)) {
    throw new RangeError(`reconnect needs 0 < minMs <= maxMs, got minMs ${opts.minMs}, maxMs ${opts.maxMs}`);
  }
  return opts;
}

/** The wait before reconnect attempt `attempt` (0 = first retry after a healthy connection). */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  // 2^attempt overflows to Infinity long after the cap is reached; min() keeps it finite.
  const ceiling = Math.min(opts.maxMs, opts.minMs * 2 ** Math.min(attempt, 52));
  return Math.floor(random() * ceiling);
}
