// Strikes against peers, keyed by whatever names them (a BLS key, a NodeID). `threshold` strikes
// within `windowMs` put the key in a cooldown during which its connections are refused (a signer
// that sent an invalid signature, a node that broke the p2p protocol). Memory is bounded: each
// key keeps at most `threshold` timestamps and at most `maxTrackedKeys` keys are remembered (the
// oldest are forgotten first).

export interface PenaltyOptions {
  threshold: number;
  windowMs: number;
  cooldownMs: number;
  maxTrackedKeys?: number;
}

export const DEFAULT_PENALTIES: Required<PenaltyOptions> = {
  threshold: 3,
  windowMs: 60_000,
  cooldownMs: 5 * 60_000,
  maxTrackedKeys: 100_000,
};

export class PenaltyBox {
  private readonly strikes = new Map<string, number[]>();
  private readonly cooldowns = new Map<string, number>();
  private readonly opts: Required<PenaltyOptions>;

  constructor(
    opts: PenaltyOptions = DEFAULT_PENALTIES,
    private readonly now: () => number = Date.now,
  ) {
    this.opts = { ...DEFAULT_PENALTIES, ...opts };
    const { threshold, windowMs, cooldownMs, maxTrackedKeys } = this.opts;
    if (!(Number.isInteger(threshold) && threshold >= 1 && windowMs > 0 && cooldownMs >= 0 && maxTrackedKeys >= 1)) {
      throw new RangeError('penalties need an integer threshold >= 1, windowMs > 0, cooldownMs >= 0');
    }
  }

  /** Records a strike; true when it starts a cooldown. */
  strike(key: string): boolean {
    const t = this.now();
    const recent = (this.strikes.get(key) ?? []).filter((at) => t - at < this.opts.windowMs);
    recent.push(t);
    this.strikes.delete(key); // re-insert so Map order is least recently struck first
    if (recent.length >= this.opts.threshold) {
      this.remember(this.cooldowns, key, t + this.opts.cooldownMs);
      return true;
    }
    this.remember(this.strikes, key, recent);
    return false;
  }

  /** Starts (or restores) a cooldown of `forMs` for the key, as a strike at the threshold would. */
  ban(key: string, forMs: number): void {
    if (forMs > 0) this.remember(this.cooldowns, key, this.now() + forMs);
  }

  /** Milliseconds until the key may connect again; 0 when it is not cooling down. */
  cooldownRemaining(key: string): number {
    const until = this.cooldowns.get(key);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left <= 0) {
      this.cooldowns.delete(key);
      return 0;
    }
    return left;
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    while (map.size > this.opts.maxTrackedKeys) {
      const oldest = map.keys().next().value as string;
      map.delete(oldest);
    }
  }
}
