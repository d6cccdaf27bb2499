// Bounded exponential backoff with jitter: every retry in the relayer waits, and no wait grows
// past its cap, so a dead RPC or a destination down for hours costs a request every few minutes,
// never a tight loop.

export interface Backoff {
  /** The first delay. */
  readonly initialMs: number;
  /** The largest delay. */
  readonly maxMs: number;
  /** Each delay is the previous times this. */
  readonly factor: number;
}

/**
 * The delay before retry number `attempt` (1 = the first retry): initialMs * factor^(attempt-1),
 * capped at maxMs, then jittered down by up to a fifth so many retries started together spread out.
 */
export function backoffDelay(schedule: Backoff, attempt: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 64));
  const raw = Math.min(schedule.maxMs, schedule.initialMs * schedule.factor ** exponent);
  return Math.max(1, Math.round(raw * (1 - 0.2 * random())));
}
