// Verified signatures by (messageID, validator key). A repeat request for a message whose
// signatures are here costs no peer round trip. Bounded twice: by messages (LRU) and by total
// signatures, and every entry expires.

interface SignatureCacheOptions {
  maxMessages?: number;
  maxSignatures?: number;
  ttlMs?: number;
}

interface Entry {
  expiresAt: number;
  sigs: Map<string, Uint8Array>;
}

export class SignatureCache {
  private readonly byMessage = new Map<string, Entry>();
  private total = 0;
  private readonly maxMessages: number;
  private readonly maxSignatures: number;
  private readonly ttlMs: number;

  constructor(opts: SignatureCacheOptions = {}) {
    this.maxMessages = opts.maxMessages ?? 10_000;
    this.maxSignatures = opts.maxSignatures ?? 200_000;
    this.ttlMs = opts.ttlMs ?? 10 * 60_000;
  }

  /** The cached signatures of a message, by public-key hex (empty when none or expired). */
  get(messageIdHex: string, now = Date.now()): ReadonlyMap<string, Uint8Array> {
    const entry = this.byMessage.get(messageIdHex);
    if (!entry) return new Map();
    if (entry.expiresAt <= now) {
      this.drop(messageIdHex, entry);
      return new Map();
    }
    // Refresh LRU position.
    this.byMessage.delete(messageIdHex);
    this.byMessage.set(messageIdHex, entry);
    // A snapshot: a collection must not see the entry change under it.
    return new Map(entry.sigs);
  }

  /** Adds signatures verified for this message and key (see Collection's `confirmed`). */
  add(messageIdHex: string, sigs: Iterable<[pkHex: string, sig: Uint8Array]>, now = Date.now()): void {
    let entry = this.byMessage.get(messageIdHex);
    if (!entry || entry.expiresAt <= now) {
      if (entry) this.drop(messageIdHex, entry);
      entry = { expiresAt: now + this.ttlMs, sigs: new Map() };
    } else {
      this.byMessage.delete(messageIdHex);
    }
    this.byMessage.set(messageIdHex, entry);
    for (const [pk, sig] of sigs) {
      if (!entry.sigs.has(pk)) this.total++;
      entry.sigs.set(pk, sig);
    }
    this.evict(now);
  }

  /** Drops one signature (it failed a check after all). */
  delete(messageIdHex: string, pkHex: string): void {
    const entry = this.byMessage.get(messageIdHex);
    if (entry?.sigs.delete(pkHex)) this.total--;
  }

  get size(): { messages: number; signatures: number } {
    return { messages: this.byMessage.size, signatures: this.total };
  }

  private drop(key: string, entry: Entry): void {
    this.byMessage.delete(key);
    this.total -= entry.sigs.size;
  }

  /**
   * Drops from the least recently used end while over a bound or expired. Expired entries are
   * dropped here too, not only when their message is asked for again (most never are): otherwise
   * the cache holds dead signatures until the bounds force them out, and its memory follows
   * maxSignatures rather than what the TTL keeps alive. The sweep stops at the first live entry
   * within bounds, so each add costs what it drops.
   */
  private evict(now: number): void {
    for (const [key, entry] of this.byMessage) {
      if (this.byMessage.size <= this.maxMessages && this.total <= this.maxSignatures && entry.expiresAt > now) break;
      this.drop(key, entry);
    }
  }
}
