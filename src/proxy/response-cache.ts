// Successful answers of cacheable GETs, kept for a fixed time. Bounded twice: by entries and by
// bytes, dropping the least recently used first, so a burst of large answers cannot grow memory.

interface CachedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface ResponseCacheOptions {
  /** Time to live; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
  now?: () => number;
}

interface Entry {
  value: CachedResponse;
  expiresAt: number;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(private readonly opts: ResponseCacheOptions) {
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.ttlMs > 0 && this.opts.maxEntries > 0;
  }

  get(key: string): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.remove(key, entry);
    if (entry.expiresAt <= this.now()) return undefined;
    // Re-inserting moves the entry to the most recently used end.
    this.entries.set(key, entry);
    this.bytes += entry.value.body.length;
    return entry.value;
  }

  set(key: string, value: CachedResponse): void {
    if (!this.enabled) return;
    // One answer may take at most a quarter of the budget, so the cache never holds just one.
    if (value.body.length > this.opts.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, { value, expiresAt: this.now() + this.opts.ttlMs });
    this.bytes += value.body.length;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.opts.maxEntries && this.bytes <= this.opts.maxBytes) break;
      this.remove(k, e);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.value.body.length;
  }
}
