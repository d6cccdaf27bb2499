// Route leases in Redis (issue: active/standby): of the relayers sharing one Redis, the one holding
// a route's lease delivers its messages; the others stand by and take the lease over when its
// holder stops renewing it (dead, paused, cut off from Redis).
//
// One key per route, `lease:<route>`, holds the holder's owner token and expires after `ttlMs`.
// The holder renews it every `renewEveryMs` (default a third of the TTL: two renewals can fail
// before it lapses); a relayer not holding it tries to take it every `pollEveryMs`. Both are one
// script (EVALSHA): take the key when it is free (SET PX), extend it when it is ours (PEXPIRE),
// else leave it. So a standby takes a route over at most ttlMs + pollEveryMs after the last
// renewal that reached Redis.
//
// Safety rests on the local expiry, not on Redis' answer: a renewal extends this relayer's view of
// the lease to the time the renewal was *sent* plus the TTL, which is never later than the time
// Redis will let the key lapse (Redis starts the TTL when it runs the script, after the send). The
// clock is monotonic (performance.now), so a wall-clock jump changes nothing, and a process
// paused (SIGSTOP, a long GC) finds on waking that its time ran out while it slept. `holds(route,
// margin)` is true only while that expiry is more than `margin` away: the engine asks it right
// before each broadcast, so a relayer that lost the lease, or cannot reach Redis to renew it,
// never sends. Redis down: renewals fail, holds() turns false at the local expiry, and the next
// renewal or take after Redis is back decides who holds it.
//
// Takeover: `holder:<route>` remembers the last holder's token. Taking a free lease whose last
// holder was another relayer that never released it is a takeover (the other stopped renewing);
// a clean stop releases the lease and forgets the holder, so the next one just acquires.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { SharedConnection } from '../../shared-state/connection.js';
import type { RouteLeases } from '../ports.js';
import { DEFAULT_RELAYER_NAMESPACE } from './redis-store.js';

/** KEYS: lease, holder. ARGV: token, ttl. 'renewed' | 'acquired' | 'takeover' | 'held' (by another). */
const CLAIM_LUA = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 'renewed' end
if v then return 'held' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local last = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[2], ARGV[1])
if last and last ~= ARGV[1] then return 'takeover' end
return 'acquired'`;

/** KEYS: lease, holder. ARGV: token. Deletes the lease (and forgets the holder) only while it is ours. */
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1`;

type Script = (...args: (string | number)[]) => Promise<unknown>;
type Scripted = Redis & { warpgateRouteLeaseClaim: Script; warpgateRouteLeaseRelease: Script };

function scripted(client: Redis): Scripted {
  const c = client as Scripted;
  if (typeof c.warpgateRouteLeaseClaim !== 'function') {
    client.defineCommand('warpgateRouteLeaseClaim', { numberOfKeys: 2, lua: CLAIM_LUA });
    client.defineCommand('warpgateRouteLeaseRelease', { numberOfKeys: 2, lua: RELEASE_LUA });
  }
  return c;
}

/** What the metrics and the status page hear about this relayer's leases. */
export interface RouteLeaseEvents {
  /**
   * acquired: a free lease taken; takeover: taken from a holder that stopped renewing; lost: its
   * time ran out (not renewed in time, or another holds it now); released: given up on stop.
   */
  onLease?(route: string, change: 'acquired' | 'takeover' | 'lost' | 'released'): void;
  /**
   * After a takeover: how many of the route's deliveries the previous holder had recorded as
   * submitted and not finished. The engine resumes them as `pending` submissions, so they are
   * waited for (or found delivered), not sent again.
   */
  onInFlightAtTakeover?(route: string, count: number): void;
}

export interface RedisLeaseOptions {
  /** How long a lease lives without renewal: how soon a standby may take over. */
  ttlMs: number;
  /** Default ttlMs / 3. */
  renewEveryMs?: number;
  /** How often a relayer that does not hold a route tries to take it. Default min(1000, ttlMs / 3). */
  pollEveryMs?: number;
  /** This relayer's owner token; default `<host>/<pid>/<random>`, so an operator can tell who holds what. */
  owner?: string;
  /** Under the connection's key prefix. */
  namespace?: string;
  /** Counts a route's `submitted` messages for onInFlightAtTakeover (the store's count). */
  inFlight?(route: string): Promise<number>;
  /** Monotonic milliseconds; tests may replace it. */
  now?(): number;
}

interface RouteLease {
  held: boolean;
  /** Local (monotonic) time past which this relayer no longer counts on the lease. */
  expiresAt: number;
  loop?: NodeJS.Timeout;
  expiry?: NodeJS.Timeout;
}

export class RedisRouteLeases implements RouteLeases {
  readonly owner: string;
  readonly ttlMs: number;
  private readonly renewEveryMs: number;
  private readonly pollEveryMs: number;
  private readonly ns: string;
  private readonly now: () => number;
  private readonly routes = new Map<string, RouteLease>();
  private readonly claims = new Set<Promise<void>>();
  private onChange: (route: string, held: boolean) => void = () => undefined;
  private stopped = false;

  constructor(
    private readonly conn: SharedConnection,
    private readonly opts: RedisLeaseOptions,
    private readonly events: RouteLeaseEvents = {},
  ) {
    if (!(opts.ttlMs > 0)) throw new RangeError(`lease ttlMs must be positive, got ${opts.ttlMs}`);
    this.ttlMs = opts.ttlMs;
    this.renewEveryMs = opts.renewEveryMs ?? opts.ttlMs / 3;
    this.pollEveryMs = opts.pollEveryMs ?? Math.min(1_000, opts.ttlMs / 3);
    if (!(this.renewEveryMs > 0 && this.renewEveryMs < this.ttlMs)) throw new RangeError(`lease renewEveryMs must be between 0 and ttlMs (${this.ttlMs}), got ${this.renewEveryMs}`);
    if (!(this.pollEveryMs > 0)) throw new RangeError(`lease pollEveryMs must be positive, got ${this.pollEveryMs}`);
    this.owner = opts.owner ?? `${hostname()}/${process.pid}/${randomBytes(6).toString('hex')}`;
    this.ns = opts.namespace ?? DEFAULT_RELAYER_NAMESPACE;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Just before a renewal the lease has ttlMs - renewEveryMs left; half of that leaves the other half for the renewal's round trip. */
  get maxMarginMs(): number {
    return (this.ttlMs - this.renewEveryMs) / 2;
  }

  holds(route: string, marginMs: number): boolean {
    const lease = this.routes.get(route);
    return lease !== undefined && lease.held && this.now() + marginMs < lease.expiresAt;
  }

  /** How long this relayer still counts on the route's lease if no renewal lands (ms; 0 when not held). */
  expiresIn(route: string): number {
    const lease = this.routes.get(route);
    return lease?.held ? Math.max(0, lease.expiresAt - this.now()) : 0;
  }

  /** The routes this relayer holds now (the status page, /metrics). */
  held(): string[] {
    return [...this.routes].filter(([route]) => this.holds(route, 0)).map(([route]) => route);
  }

  /** Who holds each route now, as Redis says (owner tokens; null: nobody). */
  async holders(routes: readonly string[]): Promise<Map<string, string | null>> {
    const values = routes.length === 0 ? [] : await this.conn.run('route lease holders', (c) => c.mget(...routes.map((r) => this.leaseKey(r))));
    return new Map(routes.map((r, i) => [r, values[i] ?? null]));
  }

  start(routes: readonly string[], onChange: (route: string, held: boolean) => void): void {
    if (this.stopped) throw new Error('route leases were stopped; make new ones');
    this.onChange = onChange;
    for (const route of routes) {
      if (this.routes.has(route)) continue;
      const lease: RouteLease = { held: false, expiresAt: 0 };
      this.routes.set(route, lease);
      this.cycle(route, lease);
    }
  }

  /** Stops renewing and releases every lease this relayer holds, so a standby takes over at once. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const lease of this.routes.values()) {
      clearTimeout(lease.loop);
      clearTimeout(lease.expiry);
    }
    await Promise.allSettled([...this.claims]);
    await Promise.allSettled(
      [...this.routes].map(async ([route, lease]) => {
        const wasHeld = lease.held;
        lease.held = false;
        lease.expiresAt = 0;
        // Owner-checked, so it is safe for a lease that lapsed and another took meanwhile.
        const released = await this.conn
          .run('route lease release', (c) => scripted(c).warpgateRouteLeaseRelease(this.leaseKey(route), this.holderKey(route), this.owner))
          .catch(() => 0);
        if (wasHeld) this.report(route, released === 1 ? 'released' : 'lost', false);
      }),
    );
  }

  /** One claim, then the next after renewEveryMs (held) or pollEveryMs (not held). */
  private cycle(route: string, lease: RouteLease): void {
    if (this.stopped) return;
    // A callback that throws must not stop the renewals (nor become an unhandled rejection).
    const claim = this.claim(route, lease).catch(() => undefined).finally(() => {
      this.claims.delete(claim);
      if (!this.stopped) {
        lease.loop = setTimeout(() => this.cycle(route, lease), lease.held ? this.renewEveryMs : this.pollEveryMs);
        lease.loop.unref();
      }
    });
    this.claims.add(claim);
  }

  private async claim(route: string, lease: RouteLease): Promise<void> {
    this.lapse(route, lease);
    const sentAt = this.now();
    let outcome: unknown;
    try {
      outcome = await this.conn.run('route lease', (c) => scripted(c).warpgateRouteLeaseClaim(this.leaseKey(route), this.holderKey(route), this.owner, Math.ceil(this.ttlMs)));
    } catch {
      // Redis unavailable or slow: the lease stays ours only until its local expiry (the timer below).
      return;
    }
    if (this.stopped) return;
    if (outcome === 'held') {
      if (lease.held) this.lose(route, lease);
      return;
    }
    lease.expiresAt = sentAt + this.ttlMs;
    clearTimeout(lease.expiry);
    lease.expiry = setTimeout(() => this.lapse(route, lease), Math.max(0, lease.expiresAt - this.now()) + 1);
    lease.expiry.unref();
    if (lease.held) return;
    lease.held = true;
    const takeover = outcome === 'takeover';
    this.safely(() => this.events.onLease?.(route, takeover ? 'takeover' : 'acquired'));
    if (takeover && this.opts.inFlight && this.events.onInFlightAtTakeover) {
      const count = await this.opts.inFlight(route).catch(() => undefined);
      if (count !== undefined) this.safely(() => this.events.onInFlightAtTakeover?.(route, count));
      if (this.stopped || !lease.held) return;
    }
    this.safely(() => this.onChange(route, true));
  }

  /** Reports the loss once the local expiry has passed (holds() already says false by then). */
  private lapse(route: string, lease: RouteLease): void {
    if (lease.held && this.now() >= lease.expiresAt) this.lose(route, lease);
  }

  private lose(route: string, lease: RouteLease): void {
    lease.held = false;
    lease.expiresAt = 0;
    clearTimeout(lease.expiry);
    this.report(route, 'lost', false);
  }

  private report(route: string, change: 'lost' | 'released', held: boolean): void {
    this.safely(() => this.events.onLease?.(route, change));
    this.safely(() => this.onChange(route, held));
  }

  /** A listener's bug is its own: the leases go on. */
  private safely(call: () => void): void {
    try {
      call();
    } catch {
      // ignored on purpose
    }
  }

  private leaseKey(route: string): string {
    return this.conn.key(`${this.ns}lease:${route}`);
  }

  private holderKey(route: string): string {
    return this.conn.key(`${this.ns}holder:${route}`);
  }
}
