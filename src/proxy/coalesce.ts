// Identical requests in flight at the same moment share one upstream call. The map only holds
// calls in progress, and past `maxKeys` new calls simply run on their own.

export class InFlight<T> {
  private readonly pending = new Map<string, Promise<T>>();

  constructor(private readonly maxKeys = 10_000) {}

  /** Runs `start` unless a call with the same key is in progress; `joined` tells which happened. */
  run(key: string, start: () => Promise<T>): { promise: Promise<T>; joined: boolean } {
    const existing = this.pending.get(key);
    if (existing) return { promise: existing, joined: true };
    const promise = start();
    if (this.pending.size < this.maxKeys) {
      this.pending.set(key, promise);
      const forget = (): void => {
        if (this.pending.get(key) === promise) this.pending.delete(key);
      };
      promise.then(forget, forget);
    }
    return { promise, joined: false };
  }

  get size(): number {
    return this.pending.size;
  }
}
