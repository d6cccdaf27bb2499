// A size-bounded least-recently-used map. JavaScript Maps iterate in insertion order, so
// re-inserting on every hit keeps the oldest entry first and eviction is O(1).

export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`LruMap maxEntries must be a positive integer, got ${maxEntries}`);
    }
  }

  get size(): number {
    return this.map.size;
  }

  /** The value, marked as most recently used. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.map.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}
