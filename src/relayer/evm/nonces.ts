// One nonce sequence per delivery key. The first nonce comes from the chain (the key's `pending`
// transaction count), later ones are counted locally so concurrent deliveries from one key do not
// collide. A nonce taken but never broadcast is handed back and reused first, so no gap stalls
// the key's later transactions; a nonce a resumed delivery already owns (a submission from a
// previous run) is claimed so nothing new is given it; "nonce too low" resynchronises from the chain.
type FetchNonce = (address: `0x${string}`) => Promise<number>;

interface Sequence {
  /** The next never-used nonce, once known. */
  next?: number;
  /** Nonces handed back unused: given out again first, lowest first. */
  readonly free: Set<number>;
  /** Nonces owned by deliveries that resumed a previous run's submission. */
  readonly claimed: Set<number>;
  /** Serialises the sequence's updates (the first fetch, resyncs). */
  lock: Promise<unknown>;
}

export class NonceManager {
  private readonly sequences = new Map<string, Sequence>();

  constructor(private readonly fetchNonce: FetchNonce) {}

  private sequence(address: `0x${string}`): Sequence {
    const key = address.toLowerCase();
    let s = this.sequences.get(key);
    if (!s) this.sequences.set(key, (s = { free: new Set(), claimed: new Set(), lock: Promise.resolve() }));
    return s;
  }

  private locked<T>(s: Sequence, work: () => Promise<T>): Promise<T> {
    const run = s.lock.then(work, work);
    s.lock = run.catch(() => undefined);
    return run;
  }

  /** Takes the key's next nonce: a handed-back one if any, else the next never used. */
  take(address: `0x${string}`): Promise<number> {
    const s = this.sequence(address);
    return this.locked(s, async () => {
      if (s.next === undefined) s.next = await this.fetchNonce(address);
      // A handed-back nonce below the chain's count was used meanwhile (by a resync); drop it.
      const free = [...s.free].sort((a, b) => a - b);
      for (const nonce of free) {
        s.free.delete(nonce);
        if (nonce < s.next && !s.claimed.has(nonce)) return nonce;
      }
      while (s.claimed.has(s.next)) s.next++;
      return s.next++;
    });
  }

  /** Gives back a nonce that was taken but never broadcast. */
  release(address: `0x${string}`, nonce: number): void {
    const s = this.sequence(address);
    if (s.next !== undefined && nonce === s.next - 1) s.next = nonce;
    else s.free.add(nonce);
  }

  /** A resumed submission owns `nonce`: never hand it out while claimed. */
  claim(address: `0x${string}`, nonce: number): void {
    const s = this.sequence(address);
    s.claimed.add(nonce);
    s.free.delete(nonce);
  }

  unclaim(address: `0x${string}`, nonce: number): void {
    this.sequence(address).claimed.delete(nonce);
  }

  /** "nonce too low": forget the local count; the next take asks the chain again. */
  resync(address: `0x${string}`): Promise<void> {
    const s = this.sequence(address);
    return this.locked(s, async () => {
      s.next = await this.fetchNonce(address);
      for (const nonce of s.free) if (nonce < s.next) s.free.delete(nonce);
    });
  }
}
