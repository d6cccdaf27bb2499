// Remembers a policy's final verdicts (types.ts) by message and justification, so a message asked
// again (a retry, a second service, a flood of one message) costs no node call. Only final
// verdicts are kept: an allow resting on state that moves (an L1 validator's weight), a refusal
// resting on state (a message the node has not accepted yet) and a refusal caused by a failure
// (the node did not answer) are used for the request that asked and then forgotten.
//
// The key is the message ID and the justification together: a P-Chain verdict depends on both
// (an unregistration is judged on its justification), and the message ID is a hash of the message.
// Bounded by entries (least recently used dropped first) and by age; concurrent requests for the
// same key share one decision in flight.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes } from '../warp/hex.js';
import { decideWith } from './policy.js';
import type { SigningPolicy, UnsignedMessage, Verdict } from './types.js';

export interface VerdictCacheOptions {
  /** Verdicts kept; 0 turns the cache off (decisions in flight are still shared). */
  maxEntries: number;
  /** How long a kept verdict is used, in ms. */
  ttlMs: number;
  /** Milliseconds on a monotonic clock; tests pass their own. */
  now?: () => number;
}

export const DEFAULT_VERDICT_CACHE: Readonly<VerdictCacheOptions> = { maxEntries: 10_000, ttlMs: 10 * 60_000 };

export class CachedPolicy implements SigningPolicy {
  private readonly kept = new Map<string, { verdict: Verdict; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<Verdict>>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly inner: SigningPolicy,
    opts: VerdictCacheOptions = DEFAULT_VERDICT_CACHE,
  ) {
    if (!Number.isInteger(opts.maxEntries) || opts.maxEntries < 0) throw new RangeError(`verdict cache maxEntries must be an integer >= 0, got ${opts.maxEntries}`);
    if (!(opts.ttlMs > 0)) throw new RangeError(`verdict cache ttlMs must be > 0, got ${opts.ttlMs}`);
    this.maxEntries = opts.maxEntries;
    this.ttlMs = opts.ttlMs;
    this.now = opts.now ?? (() => performance.now());
  }

  get size(): number {
    return this.kept.size;
  }

  async check(message: UnsignedMessage, justification: Uint8Array): Promise<string | null> {
    return (await this.decide(message, justification)).reason;
  }

  decide(message: UnsignedMessage, justification: Uint8Array): Promise<Verdict> {
    const key = bytesToHex(justification.length === 0 ? message.id : sha256(concatBytes(message.id, justification)));
    const entry = this.kept.get(key);
    if (entry) {
      this.kept.delete(key);
      if (entry.expiresAt > this.now()) {
        this.kept.set(key, entry); // most recently used goes last
        return Promise.resolve(entry.verdict);
      }
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const deciding = decideWith(this.inner, message, justification)
      .then((verdict) => {
        if (verdict.final) this.keep(key, verdict);
        return verdict;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, deciding);
    return deciding;
  }

  private keep(key: string, verdict: Verdict): void {
    if (this.maxEntries === 0) return;
    this.kept.set(key, { verdict, expiresAt: this.now() + this.ttlMs });
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= this.maxEntries) break;
      this.kept.delete(oldest);
    }
  }
}
