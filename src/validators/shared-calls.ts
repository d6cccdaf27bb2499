// Concurrent callers asking for the same thing share one call. Each caller waits with its own
// AbortSignal and stops waiting at its own deadline, which never cancels the call for the others.
// A call the last caller has left goes on to its own end (its own timeout), so that an answer
// slower than one caller's deadline still arrives for the next one (a set is cached once read),
// but only up to `maxOrphans` such calls at once: past that, a call nobody waits for is
// cancelled, so callers that give up cannot pile up calls in flight. A detached call (a
// background refresh nobody waits for) is never cancelled and ends by its own timeout.

interface Entry<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
  detached: boolean;
  /** Left by its last caller and kept running (counted in `orphans`). */
  orphan: boolean;
  settled: boolean;
}

/** The reason a shared call is cancelled with: nobody is left to use its answer. */
const NO_CALLER_WAITS: Error = new Error('no caller waits for this call any more');

export class SharedCalls<T> {
  private readonly calls = new Map<string, Entry<T>>();
  private orphans = 0;

  /** `maxOrphans`: calls left by every caller that may go on running at once (0: cancel them all). */
  constructor(private readonly maxOrphans = 0) {}

  /** Calls in flight. */
  get size(): number {
    return this.calls.size;
  }

  has(key: string): boolean {
    return this.calls.has(key);
  }

  /**
   * Waits for the call under `key`, starting it with `start` when none is in flight. Rejects with
   * `signal.reason` when the signal aborts first.
   */
  join(key: string, start: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason as unknown);
    const entry = this.calls.get(key) ?? this.start(key, start, false);
    entry.waiters++;
    return new Promise<T>((resolve, reject) => {
      let waiting = true;
      const leave = (): boolean => {
        if (!waiting) return false;
        waiting = false;
        entry.waiters--;
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const onAbort = (): void => {
        if (!leave()) return;
        if (entry.waiters === 0 && !entry.detached && !entry.orphan && !entry.settled) this.orphan(key, entry);
        reject(signal!.reason as unknown);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      entry.promise.then(
        (value) => {
          if (leave()) resolve(value);
        },
        (err: unknown) => {
          if (leave()) reject(err);
        },
      );
    });
  }

  /** Starts the call under `key` with nobody waiting (a background refresh), unless one is in flight. */
  detach(key: string, start: (signal: AbortSignal) => Promise<T>): void {
    if (!this.calls.has(key)) this.start(key, start, true);
  }

  private start(key: string, start: (signal: AbortSignal) => Promise<T>, detached: boolean): Entry<T> {
    const controller = new AbortController();
    const entry: Entry<T> = { promise: undefined as unknown as Promise<T>, controller, waiters: 0, detached, orphan: false, settled: false };
    let work: Promise<T>;
    try {
      work = start(controller.signal);
    } catch (err) {
      work = Promise.reject(err);
    }
    entry.promise = work.finally(() => {
      entry.settled = true;
      if (entry.orphan) this.orphans--;
      if (this.calls.get(key) === entry) this.calls.delete(key);
    });
    // Waiters observe the outcome; with none left (cancelled, detached) it must not go unhandled.
    entry.promise.catch(() => undefined);
    this.calls.set(key, entry);
    return entry;
  }

  /** The last caller left: keep the call running while there is room, else cancel it. */
  private orphan(key: string, entry: Entry<T>): void {
    if (this.orphans < this.maxOrphans) {
      // A later caller for the same key still joins it.
      entry.orphan = true;
      this.orphans++;
      return;
    }
    // A caller arriving from now on starts afresh instead of joining a cancelled call.
    if (this.calls.get(key) === entry) this.calls.delete(key);
    entry.controller.abort(NO_CALLER_WAITS);
  }
}
