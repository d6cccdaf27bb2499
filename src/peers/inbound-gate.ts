// Who may open a connection on the peer path, decided before the WebSocket upgrade: anyone can
// dial /v1/peers, and a connection that never authenticates must not hold a slot a real signer
// needs. Per client address (an IPv6 client counts by its /64, which one host usually holds
// whole) a token bucket bounds the upgrades per minute and a counter bounds the connections in
// the handshake at once; a global counter bounds all of them. A slot is held from the upgrade
// until the connection authenticates or closes. Connections the service dials are not gated.
import { addressGroup } from '../util/address-group.js';
import { RateLimiter } from '../util/rate-limit.js';

interface InboundGateOptions {
  /** Connections in the handshake at once, from everyone. */
  maxPending: number;
  /** Connections in the handshake at once from one address. */
  maxPendingPerIp: number;
  /** Upgrades per address per minute, in bursts up to the same number; 0: no limit. */
  handshakesPerMinutePerIp: number;
  /** Addresses whose counts are tracked at once; default 100,000. */
  maxTrackedAddresses?: number;
  now?: () => number;
}

export type RefusalKind = 'rate' | 'pending-per-ip' | 'pending';

type GateVerdict =
  | { ok: true; release(): void }
  | { ok: false; kind: RefusalKind; status: 429 | 503; reason: string; retryAfterSeconds: number };

export class InboundGate {
  private readonly perIp = new Map<string, number>();
  private total = 0;
  private readonly rate: RateLimiter | undefined;
  private readonly maxTracked: number;

  constructor(private readonly opts: InboundGateOptions) {
    for (const name of ['maxPending', 'maxPendingPerIp'] as const) {
      if (!(Number.isSafeInteger(opts[name]) && opts[name] >= 1)) throw new RangeError(`${name} must be a positive integer, got ${opts[name]}`);
    }
    if (!(Number.isSafeInteger(opts.handshakesPerMinutePerIp) && opts.handshakesPerMinutePerIp >= 0)) {
      throw new RangeError(`handshakesPerMinutePerIp must be a non-negative integer, got ${opts.handshakesPerMinutePerIp}`);
    }
    this.maxTracked = opts.maxTrackedAddresses ?? 100_000;
    this.rate =
      opts.handshakesPerMinutePerIp > 0
        ? new RateLimiter({ requestsPerMinute: opts.handshakesPerMinutePerIp, maxKeys: this.maxTracked, ...(opts.now ? { now: opts.now } : {}) })
        : undefined;
  }

  /** Connections holding a slot now. */
  get pending(): number {
    return this.total;
  }

  /** Asks for a slot for a connection from `address`; on success, release() exactly once when it authenticates or closes. */
  enter(address: string): GateVerdict {
    const group = addressGroup(address);
    const taken = this.rate?.take(group);
    if (taken && !taken.ok) {
      return {
        ok: false,
        kind: 'rate',
        status: 429,
        reason: `more than ${this.opts.handshakesPerMinutePerIp} peer handshakes a minute from ${group}`,
        retryAfterSeconds: taken.retryAfterSeconds,
      };
    }
    const mine = this.perIp.get(group) ?? 0;
    if (mine >= this.opts.maxPendingPerIp) {
      return { ok: false, kind: 'pending-per-ip', status: 429, reason: `${mine} peer handshakes already under way from ${group}`, retryAfterSeconds: 1 };
    }
    if (this.total >= this.opts.maxPending) {
      return { ok: false, kind: 'pending', status: 503, reason: `${this.total} peer handshakes already under way`, retryAfterSeconds: 1 };
    }
    // Only addresses with a connection in the handshake are in the map; it cannot outgrow maxPending.
    this.perIp.set(group, mine + 1);
    this.total++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.perIp.get(group) ?? 1) - 1;
        if (left > 0) this.perIp.set(group, left);
        else this.perIp.delete(group);
      },
    };
  }
}
