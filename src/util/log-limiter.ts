// Bounds repetitive log lines. A flood (hundreds of refused connections a second) must not turn
// into a flood of identical warnings: per key, at most `max` lines are written per `intervalMs`;
// past that lines are counted instead, and when the interval ends one summary line says how many
// were suppressed. Keys name a kind of event ("refused: per-IP cap"), not a client, so the number
// of keys stays small; it is capped all the same (the oldest key's summary is written first).

interface LogLimiterOptions {
  /** Lines per key per interval. */
  max: number;
  intervalMs: number;
  /** Writes the summary of an interval in which `suppressed` lines of `key` were dropped. */
  summary(key: string, suppressed: number): void;
  /** Keys tracked at once; default 1,000. */
  maxKeys?: number;
  /** Clock in milliseconds; tests pass a fake one. */
  now?: () => number;
}

interface Window {
  startedAt: number;
  written: number;
  suppressed: number;
  timer: NodeJS.Timeout | undefined;
}

export const DEFAULT_LOG_LIMIT = { max: 5, intervalMs: 10_000 } as const;

export class LogLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly opts: LogLimiterOptions) {
    if (!(Number.isSafeInteger(opts.max) && opts.max >= 1 && Number.isSafeInteger(opts.intervalMs) && opts.intervalMs >= 1)) {
      throw new RangeError(`a log limiter needs max >= 1 and intervalMs >= 1, got ${opts.max} and ${opts.intervalMs}`);
    }
    this.maxKeys = opts.maxKeys ?? 1_000;
    this.now = opts.now ?? Date.now;
  }

  /** Runs `write` unless `key` has used its lines for this interval; true when it ran. */
  log(key: string, write: () => void): boolean {
    const now = this.now();
    let w = this.windows.get(key);
    if (w && now - w.startedAt >= this.opts.intervalMs) {
      this.flush(key, w);
      w = undefined;
    }
    if (!w) {
      while (this.windows.size >= this.maxKeys) {
        const [oldestKey, oldest] = this.windows.entries().next().value!;
        this.flush(oldestKey, oldest);
      }
      w = { startedAt: now, written: 0, suppressed: 0, timer: undefined };
      this.windows.set(key, w);
    }
    if (w.written < this.opts.max) {
      w.written++;
      write();
      return true;
    }
    w.suppressed++;
    // The summary is due when the interval ends, even if no further line comes to trigger it.
    if (!w.timer && !this.closed) {
      const window = w;
      w.timer = setTimeout(() => this.flush(key, window), Math.max(0, w.startedAt + this.opts.intervalMs - now));
      w.timer.unref();
    }
    return false;
  }

  /** Lines of `key` dropped so far in its current interval. */
  suppressed(key: string): number {
    return this.windows.get(key)?.suppressed ?? 0;
  }

  /** Writes every pending summary now. After it no timer is started: a later close() writes what came since. */
  close(): void {
    this.closed = true;
    for (const [key, w] of [...this.windows]) this.flush(key, w);
  }

  private flush(key: string, w: Window): void {
    if (this.windows.get(key) !== w) return;
    this.windows.delete(key);
    clearTimeout(w.timer);
    if (w.suppressed > 0) this.opts.summary(key, w.suppressed);
  }
}
