// Route leases against a real redis-server: of two relayers one holds a route; the other takes it
// over once the holder stops renewing (closed connection, SIGSTOP, clean stop), never while the
// holder still counts on it; a paused holder finds on waking that it lost the lease before the
// other gained it; Redis stopped: nobody holds once the local expiry passes, and the lease comes
// back when Redis does. Times are asserted as orderings and generous bounds, never as speed.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisRouteLeases, type RouteLeaseEvents } from '../../src/relayer/store/redis-leases.js';
import { SharedConnection } from '../../src/shared-state/connection.js';
import { packagePath, tsExecArgv } from '../../src/util/ts-runtime.js';
import { startRedis, type TestRedis } from '../shared-state/redis-server.js';

let redis: TestRedis;
const cleanups: (() => Promise<unknown>)[] = [];
let prefixes = 0;
const ROUTE = 'src->dst';
/** Slack for a loaded machine: a takeover must come within ttl + poll + this. */
const SLACK_MS = 10_000;

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterEach(async () => {
  await Promise.allSettled(cleanups.splice(0).map((f) => f()));
});

afterAll(async () => {
  await redis?.stop();
});

async function connection(url = redis.url, prefix = `l${prefixes}:`): Promise<SharedConnection> {
  const conn = new SharedConnection({ url, keyPrefix: prefix, commandTimeoutMs: 1_000, connectTimeoutMs: 5_000 });
  cleanups.push(() => conn.close());
  await conn.connect();
  return conn;
}

interface Watched {
  leases: RedisRouteLeases;
  conn: SharedConnection;
  changes: { held: boolean; at: number }[];
  events: string[];
  /** Resolves at the next onChange to `held`. */
  next(held: boolean, timeoutMs: number): Promise<number>;
}

async function relayer(opts: { ttlMs: number; renewEveryMs?: number; pollEveryMs?: number; inFlight?: (route: string) => Promise<number> }, url = redis.url): Promise<Watched> {
  const conn = await connection(url);
  const events: string[] = [];
  const hooks: RouteLeaseEvents = { onLease: (r, change) => events.push(`${r} ${change}`), onInFlightAtTakeover: (r, n) => events.push(`${r} in flight ${n}`) };
  const leases = new RedisRouteLeases(conn, opts, hooks);
  cleanups.unshift(() => leases.stop());
  const changes: { held: boolean; at: number }[] = [];
  const waiters: { held: boolean; resolve(at: number): void }[] = [];
  leases.start([ROUTE], (route, held) => {
    expect(route).toBe(ROUTE);
    const at = Date.now();
    changes.push({ held, at });
    for (const w of waiters.splice(0)) {
      if (w.held === held) w.resolve(at);
      else waiters.push(w);
    }
  });
  return {
    leases,
    conn,
    changes,
    events,
    next: (held, timeoutMs) =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no change to held=${held} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ held, resolve: (at) => (clearTimeout(timer), resolve(at)) });
      }),
  };
}

/** Samples both every few ms until stopped: the times both held the route with the margin. */
function watchOverlap(a: RedisRouteLeases, b: RedisRouteLeases, marginMs: number): { stop(): number } {
  let overlaps = 0;
  const timer = setInterval(() => {
    if (a.holds(ROUTE, marginMs) && b.holds(ROUTE, marginMs)) overlaps += 1;
  }, 2);
  return {
    stop: () => {
      clearInterval(timer);
      return overlaps;
    },
  };
}

describe('two relayers, one route', () => {
  it('only one holds; a live holder keeps it for many TTLs; the other takes over after the holder stops renewing, within ttl + poll', async () => {
    prefixes += 1;
    const ttlMs = 3_000;
    const a = await relayer({ ttlMs, pollEveryMs: 100 });
    await a.next(true, SLACK_MS);
    const b = await relayer({ ttlMs, pollEveryMs: 100, inFlight: async () => 3 });
    const overlap = watchOverlap(a.leases, b.leases, 0);
    // Three lease periods: the holder renews (every ttl/3) and keeps it; the other never gets it.
    await new Promise((r) => setTimeout(r, 3 * ttlMs));
    expect(a.leases.holds(ROUTE, 0)).toBe(true);
    expect(b.leases.holds(ROUTE, 0)).toBe(false);
    expect(a.changes.map((c) => c.held)).toEqual([true]);
    expect(b.changes).toEqual([]);
    // The holder's connection goes (as after kill -9): nothing renews it.
    const validUntil = Date.now() + a.leases.expiresIn(ROUTE);
    const cut = Date.now();
    await a.conn.close();
    const gained = await b.next(true, ttlMs + 100 + SLACK_MS);
    expect(gained).toBeGreaterThanOrEqual(validUntil - 5);
    expect(gained - cut).toBeLessThan(ttlMs + 100 + SLACK_MS);
    // The old holder noticed its loss at its local expiry, before (or as) the other gained.
    await expect.poll(() => a.changes.length, { timeout: SLACK_MS }).toBe(2);
    expect(a.changes[1]!.held).toBe(false);
    expect(a.leases.holds(ROUTE, 0)).toBe(false);
    expect(overlap.stop()).toBe(0);
    expect(b.events).toEqual([`${ROUTE} takeover`, `${ROUTE} in flight 3`]);
    expect(a.events).toEqual([`${ROUTE} acquired`, `${ROUTE} lost`]);
  }, 60_000);

  it('holds(route, margin) turns false margin ms before the lease ends, while holds(route, 0) is still true', async () => {
    prefixes += 1;
    const a = await relayer({ ttlMs: 2_000, renewEveryMs: 1_900 });
    await a.next(true, SLACK_MS);
    const left = a.leases.expiresIn(ROUTE);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(2_000);
    expect(a.leases.holds(ROUTE, left + 1)).toBe(false);
    expect(a.leases.holds(ROUTE, 0)).toBe(true);
    expect(a.leases.holds('another->route', 0)).toBe(false);
  }, 30_000);

  it('a clean stop releases the lease: the other acquires it at its next poll (acquired, not a takeover)', async () => {
    prefixes += 1;
    const a = await relayer({ ttlMs: 30_000, pollEveryMs: 100 });
    await a.next(true, SLACK_MS);
    const b = await relayer({ ttlMs: 30_000, pollEveryMs: 100 });
    const stopped = Date.now();
    await a.leases.stop();
    const gained = await b.next(true, SLACK_MS);
    // Far sooner than the 30 s TTL: it did not wait for an expiry.
    expect(gained - stopped).toBeLessThan(SLACK_MS);
    expect(b.events).toEqual([`${ROUTE} acquired`]);
    expect(a.events).toEqual([`${ROUTE} acquired`, `${ROUTE} released`]);
    expect(a.changes.map((c) => c.held)).toEqual([true, false]);
    expect(await b.leases.holders([ROUTE])).toEqual(new Map([[ROUTE, b.leases.owner]]));
  }, 30_000);

  it('several relayers starting together: exactly one holds', async () => {
    prefixes += 1;
    const all = await Promise.all(Array.from({ length: 5 }, () => relayer({ ttlMs: 5_000, pollEveryMs: 100 })));
    await expect.poll(() => all.filter((r) => r.leases.holds(ROUTE, 0)).length, { timeout: SLACK_MS }).toBe(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(all.filter((r) => r.leases.holds(ROUTE, 0)).length).toBe(1);
    expect(all.flatMap((r) => r.events)).toEqual([`${ROUTE} acquired`]);
  }, 30_000);
});

describe('a holder paused for real (SIGSTOP)', () => {
  it('loses holds before the other gains it, and does not hold again after SIGCONT', async () => {
    prefixes += 1;
    const ttlMs = 3_000;
    const lines: { kind: string; held: boolean; until?: number; woke?: boolean; at: number }[] = [];
    const child: ChildProcess = spawn(process.execPath, [...tsExecArgv(), packagePath('test/relayer/lease-holder.ts'), redis.url, `l${prefixes}:`, ROUTE, String(ttlMs), '1000', '100'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    });
    createInterface({ input: child.stdout! }).on('line', (l) => lines.push(JSON.parse(l) as (typeof lines)[number]));
    await expect.poll(() => lines.some((l) => l.kind === 'change' && l.held), { timeout: 30_000 }).toBe(true);
    const b = await relayer({ ttlMs, pollEveryMs: 100 });
    await new Promise((r) => setTimeout(r, 2 * ttlMs));
    expect(b.changes).toEqual([]);
    child.kill('SIGSTOP');
    const pausedAt = Date.now();
    const gained = await b.next(true, ttlMs + 100 + SLACK_MS);
    expect(gained - pausedAt).toBeLessThan(ttlMs + 100 + SLACK_MS);
    // Every lease end the holder counted on before its pause had passed when the other gained it.
    const lastUntil = Math.max(...lines.filter((l) => l.kind === 'holds' && l.held).map((l) => l.until!));
    expect(lastUntil).toBeLessThanOrEqual(gained + 5);
    const resumedAt = Date.now();
    child.kill('SIGCONT');
    await expect.poll(() => lines.some((l) => l.kind === 'change' && !l.held), { timeout: SLACK_MS }).toBe(true);
    await new Promise((r) => setTimeout(r, ttlMs));
    const afterResume = lines.filter((l) => l.at >= resumedAt);
    // Its first look on waking says "not held", and it never says "held" again while the other holds it.
    expect(afterResume.find((l) => l.kind === 'holds')).toMatchObject({ held: false, woke: true });
    expect(afterResume.filter((l) => l.held)).toEqual([]);
    expect(b.leases.holds(ROUTE, 0)).toBe(true);
  }, 90_000);
});

describe('Redis stopped', () => {
  it('nobody holds once the local expiry passes; the lease is taken again once Redis is back', async () => {
    prefixes += 1;
    const own = await startRedis();
    cleanups.push(() => own.stop());
    const ttlMs = 1_500;
    const a = await relayer({ ttlMs, pollEveryMs: 100 }, own.url);
    await a.next(true, SLACK_MS);
    const validUntil = Date.now() + a.leases.expiresIn(ROUTE);
    await own.stop();
    const lost = await a.next(false, ttlMs + SLACK_MS);
    // Not before the lease it had could have lapsed... and it says false from then on.
    expect(lost).toBeGreaterThanOrEqual(validUntil - 5);
    expect(a.leases.holds(ROUTE, 0)).toBe(false);
    expect(a.events).toEqual([`${ROUTE} acquired`, `${ROUTE} lost`]);
    await new Promise((r) => setTimeout(r, ttlMs));
    expect(a.leases.holds(ROUTE, 0)).toBe(false);
    await own.restart();
    await a.next(true, 30_000);
    expect(a.leases.holds(ROUTE, 0)).toBe(true);
    expect(a.events).toEqual([`${ROUTE} acquired`, `${ROUTE} lost`, `${ROUTE} acquired`]);
  }, 90_000);
});

describe('listeners', () => {
  it('a listener that throws stops neither the taking nor the renewals', async () => {
    prefixes += 1;
    const conn = await connection();
    const ttlMs = 1_500;
    let calls = 0;
    const throwing = (): never => {
      calls += 1;
      throw new Error('metrics bug');
    };
    const leases = new RedisRouteLeases(conn, { ttlMs }, { onLease: throwing });
    cleanups.unshift(() => leases.stop());
    leases.start([ROUTE], () => {
      calls += 1;
      throw new Error('engine bug');
    });
    await expect.poll(() => leases.holds(ROUTE, 0), { timeout: SLACK_MS }).toBe(true);
    await new Promise((r) => setTimeout(r, 2 * ttlMs));
    expect(leases.holds(ROUTE, 0)).toBe(true);
    expect(calls).toBe(2);
  }, 30_000);
});

describe('options', () => {
  it('refuses a TTL or renewal period that cannot work', async () => {
    const conn = await connection();
    expect(() => new RedisRouteLeases(conn, { ttlMs: 0 })).toThrow(RangeError);
    expect(() => new RedisRouteLeases(conn, { ttlMs: 1_000, renewEveryMs: 1_000 })).toThrow(/renewEveryMs/);
  });
});
