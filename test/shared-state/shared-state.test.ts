// The shared state's parts against a real Redis, one replica's view at a time: the lease that
// makes identical requests one collection (a waiter answers from the holder's signatures, takes
// over when the holder stops renewing, never waits past its own limit), the signature store's
// format checks, the shared token bucket, and what each does while Redis is down.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedState, type SharedStateEvents } from '../../src/shared-state/index.js';
import { startRedis, type TestRedis } from './redis-server.js';

let redis: TestRedis;
let inspect: Redis;
const opened: SharedState[] = [];
let prefixes = 0;

async function open(events: SharedStateEvents = {}, prefix = `unit${++prefixes}:`, leaseMs = 400): Promise<SharedState> {
  const state = await SharedState.open({ url: redis.url, keyPrefix: prefix, commandTimeoutMs: 500, connectTimeoutMs: 2000, leaseMs, signatureTtlMs: 60_000 }, events);
  opened.push(state);
  return state;
}

function roles(): { events: SharedStateEvents; seen: string[] } {
  const seen: string[] = [];
  return { seen, events: { onCoalesced: (role) => seen.push(role), onFallback: (op) => seen.push(`fallback ${op}`) } };
}

const PK = 'ab'.repeat(48);
const SIG = new Uint8Array(96).fill(7);

beforeAll(async () => {
  redis = await startRedis();
  inspect = new Redis(redis.url);
  inspect.on('error', () => undefined);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(opened.map((s) => s.close()));
  inspect?.disconnect();
  await redis?.stop();
});

describe('the lease for an identical request', () => {
  it('the second replica waits for the first and answers from its signatures, with no collection of its own', async () => {
    const prefix = 'lease1:';
    const a = roles();
    const b = roles();
    const [one, two] = [await open(a.events, prefix), await open(b.events, prefix)];
    const signal = new AbortController().signal;
    const enough = async (state: SharedState): Promise<boolean> => (await state.read('m1')).size > 0;
    const claim = await one.claim('k1', { enough: () => enough(one), waitUntil: Date.now() + 10_000, signal });
    expect(claim).not.toBeNull();
    const waiting = two.claim('k1', { enough: () => enough(two), waitUntil: Date.now() + 10_000, signal });
    await new Promise((r) => setTimeout(r, 150));
    await one.write('m1', new Map([[PK, SIG]]));
    const t0 = Date.now();
    await claim!.release();
    expect(await waiting).toBeNull();
    // Woken by the done message, not by the next look a quarter lease later.
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(a.seen).toEqual(['holder']);
    expect(b.seen).toEqual(['waiter']);
  });

  it('a holder that stops renewing (it died) loses the lease: the waiter takes over', async () => {
    const prefix = 'lease2:';
    const b = roles();
    const [one, two] = [await open({}, prefix, 300), await open(b.events, prefix, 300)];
    const signal = new AbortController().signal;
    const claim = await one.claim('k2', { enough: async () => false, waitUntil: Date.now() + 10_000, signal });
    expect(claim).not.toBeNull();
    // Its connection gone, the holder renews nothing (as after kill -9).
    await one.close();
    const t0 = Date.now();
    const taken = await two.claim('k2', { enough: async () => false, waitUntil: Date.now() + 10_000, signal });
    expect(taken).not.toBeNull();
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(b.seen).toEqual(['takeover']);
    await taken!.release();
  });

  it('a live holder keeps its lease past leaseMs; a waiter stops waiting at its own limit and collects without it', async () => {
    const prefix = 'lease3:';
    const [one, two] = [await open({}, prefix, 300), await open({}, prefix, 300)];
    const signal = new AbortController().signal;
    const claim = await one.claim('k3', { enough: async () => false, waitUntil: Date.now() + 10_000, signal });
    const t0 = Date.now();
    expect(await two.claim('k3', { enough: async () => false, waitUntil: Date.now() + 1_000, signal })).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(await inspect.get('lease3:lease:v1:k3')).not.toBeNull();
    await claim!.release();
    // Done: a marker for one lease period, so a replica that looked at the cache just before the
    // signatures came looks again instead of collecting.
    expect(await inspect.get('lease3:lease:v1:k3')).toBe('done');
    expect(await inspect.pttl('lease3:lease:v1:k3')).toBeGreaterThan(0);
  });

  it('a replica that finds the done marker looks at the cache again: it collects only when the cache still falls short', async () => {
    const prefix = 'lease4:';
    const a = roles();
    const b = roles();
    const [one, two] = [await open(a.events, prefix, 5_000), await open(b.events, prefix, 5_000)];
    const signal = new AbortController().signal;
    // The holder finishes between the other's look at the cache and its look at the lease.
    let looks = 0;
    const claim = await one.claim('k5', { enough: async () => false, waitUntil: Date.now() + 10_000, signal });
    await one.write('m5', new Map([[PK, SIG]]));
    await claim!.release();
    const late = await two.claim('k5', { enough: async () => ++looks > 1 && (await two.read('m5')).size > 0, waitUntil: Date.now() + 10_000, signal });
    expect(late).toBeNull();
    expect(looks).toBe(2);
    expect(b.seen).toEqual(['waiter']);
    // A holder whose collection fell short: the next one replaces the marker and collects.
    const again = await two.claim('k5', { enough: async () => false, waitUntil: Date.now() + 10_000, signal });
    expect(again).not.toBeNull();
    expect(b.seen).toEqual(['waiter', 'takeover']);
    await again!.release();
  });
});

describe('the shared signature store', () => {
  it('reads back what was written, under a versioned key with a format byte, and expires it', async () => {
    const state = await open({}, 'store1:');
    await state.write('m2', new Map([[PK, SIG]]));
    const raw = await inspect.hgetBuffer('store1:sig:v1:m2', PK);
    expect(raw![0]).toBe(1);
    expect(raw!.length).toBe(97);
    expect(await inspect.pttl('store1:sig:v1:m2')).toBeGreaterThan(0);
    expect((await state.read('m2')).get(PK)).toEqual(SIG);
  });

  it('drops entries that cannot be signatures (another format, a wrong length, a field that is no key) and counts them', async () => {
    const seen: string[] = [];
    const state = await open({ onSharedCache: (result, n = 1) => seen.push(`${result} ${n}`) }, 'store2:');
    const key = 'store2:sig:v1:m3';
    await inspect.hset(key, PK, Buffer.concat([Buffer.of(2), Buffer.from(SIG)]), 'cd'.repeat(48), Buffer.of(1, 2, 3), 'not-a-key', Buffer.concat([Buffer.of(1), Buffer.from(SIG)]));
    expect((await state.read('m3')).size).toBe(0);
    expect(seen).toEqual(['invalid 3', 'miss 1']);
    await new Promise((r) => setTimeout(r, 100));
    expect(await inspect.hlen(key)).toBe(0);
  });
});

describe('the shared rate limit', () => {
  it('one budget for every replica, kept on Redis', async () => {
    const prefix = 'rate1:';
    const fallbacks: string[] = [];
    const [one, two] = [await open({ onFallback: (op) => fallbacks.push(op) }, prefix), await open({}, prefix)];
    const budgetOne = one.budgets('aggregations', 4);
    const budgetTwo = two.budgets('aggregations', 4);
    const results = [];
    for (let i = 0; i < 4; i++) results.push((await (i % 2 ? budgetOne : budgetTwo).take('ip 10.0.0.1')).ok);
    expect(results).toEqual([true, true, true, true]);
    const refused = await budgetOne.take('ip 10.0.0.1');
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 15 });
    expect((await budgetTwo.take('ip 10.0.0.2')).ok).toBe(true);
    expect(fallbacks).toEqual([]);
  });
});

describe('Redis down', () => {
  it('reads are empty, writes are dropped, no lease, local budgets: all at once, none throws, each counted; back, all shared again', async () => {
    const own = await startRedis();
    const fallbacks: string[] = [];
    const health: string[] = [];
    const state = await SharedState.open(
      { url: own.url, keyPrefix: 'down:', commandTimeoutMs: 300, connectTimeoutMs: 1000, leaseMs: 400, signatureTtlMs: 60_000 },
      { onFallback: (op) => fallbacks.push(op), onHealth: (h) => health.push(h.state) },
    );
    opened.push(state);
    try {
      expect(state.unavailableReason()).toBeNull();
      await own.stop();
      await new Promise((r) => setTimeout(r, 300));
      expect(state.unavailableReason()).toMatch(/^shared state unavailable: /);
      const t0 = Date.now();
      expect((await state.read('m4')).size).toBe(0);
      await state.write('m4', new Map([[PK, SIG]]));
      expect(await state.claim('k4', { enough: async () => false, waitUntil: Date.now() + 10_000, signal: new AbortController().signal })).toBeNull();
      const budget = state.budgets('aggregations', 1);
      expect((await budget.take('ip 10.0.0.3')).ok).toBe(true);
      expect((await budget.take('ip 10.0.0.3')).ok).toBe(false);
      expect(Date.now() - t0).toBeLessThan(500);
      expect(fallbacks).toEqual(['signatures', 'signatures', 'coalescing', 'rate_limit', 'rate_limit']);

      await own.restart();
      const deadline = Date.now() + 10_000;
      while (state.unavailableReason() !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(state.unavailableReason()).toBeNull();
      await state.write('m5', new Map([[PK, SIG]]));
      expect((await state.read('m5')).get(PK)).toEqual(SIG);
      // Each new reason is reported too (the close, then refused reconnections): the states in turn.
      expect(health.filter((h, i) => h !== health[i - 1])).toEqual(['connected', 'unavailable', 'connected']);
    } finally {
      await own.stop();
    }
  }, 60_000);

  it('a Redis not yet up when the replica starts: the start does not wait for it, and the replica joins once it answers', async () => {
    const later = await startRedis();
    await later.stop();
    const t0 = Date.now();
    const state = await SharedState.open({ url: later.url, keyPrefix: 'later:', commandTimeoutMs: 300, connectTimeoutMs: 1000, leaseMs: 400, signatureTtlMs: 60_000 });
    opened.push(state);
    try {
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(state.unavailableReason()).toMatch(/^shared state unavailable: Redis refused the connection/);
      await later.restart();
      const deadline = Date.now() + 10_000;
      while (state.unavailableReason() !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(state.unavailableReason()).toBeNull();
    } finally {
      await later.stop();
    }
  }, 60_000);
});
