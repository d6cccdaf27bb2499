// Two relayers (the engine over the fakes) sharing one real redis-server for their store and
// route leases: only the lease holder delivers; when the holder is cut off from Redis with
// deliveries broadcast and not yet confirmed, the standby takes the route over, finds those
// deliveries in the store and waits for them instead of sending again, and delivers the rest:
// every message once, one transaction each, counted on the shared destination.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Hex } from '../../src/relayer/ports.js';
import { RedisRouteLeases } from '../../src/relayer/store/redis-leases.js';
import { RedisRelayerStore } from '../../src/relayer/store/redis-store.js';
import { SharedConnection } from '../../src/shared-state/connection.js';
import { startRedis, type TestRedis } from '../shared-state/redis-server.js';
import { eventually, FakeDestination, FakeSource } from './fakes.js';
import { harness, ROUTE } from './harness.js';

let redis: TestRedis;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterEach(async () => {
  for (const f of cleanups.splice(0)) await f().catch(() => undefined);
});

afterAll(async () => {
  await redis?.stop();
});

const TTL_MS = 1_500;

/** A relayer whose Redis state lives on its own connection (which a test may cut). */
async function relayer(source: FakeSource, destination: FakeDestination, lease: string[]) {
  const conn = new SharedConnection({ url: redis.url, keyPrefix: 'standby:', commandTimeoutMs: 1_000, connectTimeoutMs: 5_000 });
  await conn.connect();
  const store = new RedisRelayerStore(conn);
  const inFlight: number[] = [];
  const leases = new RedisRouteLeases(
    conn,
    { ttlMs: TTL_MS, pollEveryMs: 100, inFlight: (route) => store.count(route, 'submitted') },
    { onLease: (_r, change) => lease.push(change), onInFlightAtTakeover: (_r, n) => inFlight.push(n) },
  );
  const h = harness({ source, destination, store, leases, limits: { leaseMarginMs: 300 } });
  cleanups.push(
    () => h.relayer.stop(),
    () => conn.close(),
  );
  await h.relayer.start();
  return { ...h, conn, leases, inFlight };
}

it('the standby takes over from a holder cut off mid-burst: every message delivered once, in-flight deliveries waited on, not sent again', async () => {
  const source = new FakeSource();
  const destination = new FakeDestination();
  const activeLease: string[] = [];
  const standbyLease: string[] = [];
  const active = await relayer(source, destination, activeLease);
  await eventually('active holds', () => active.leases.holds(ROUTE, 0));
  const standby = await relayer(source, destination, standbyLease);
  await eventually('active runs', () => active.relayer.routes()[0]!.checkpoint !== undefined);

  // Deliveries broadcast but not confirmed: each waits on its receipt (the hold).
  let confirm!: () => void;
  destination.hold = new Promise<void>((r) => (confirm = r));
  const burst: Hex[] = [];
  for (let i = 0; i < 4; i++) burst.push(...source.mine([{}, {}]).map((m) => m.warpMessageId));
  await eventually('the burst is in flight', () => destination.transactions.length === burst.length);
  expect(standby.leases.holds(ROUTE, 0)).toBe(false);

  // The active is cut off from Redis: it can neither renew nor record; its deliveries hang.
  await active.conn.close();
  await eventually('the standby takes over', () => standby.leases.holds(ROUTE, 0), TTL_MS + 15_000);
  expect(standbyLease).toEqual(['takeover']);
  expect(standby.inFlight).toEqual([burst.length]);
  expect(active.leases.holds(ROUTE, 0)).toBe(false);

  // The standby found every submitted delivery and waited on it (the fake mined them): no new transaction.
  await eventually('the burst delivered', async () => {
    const records = await Promise.all(burst.map((id) => standby.store.get(id)));
    return records.every((r) => r?.status === 'delivered');
  });
  expect(destination.transactions).toHaveLength(burst.length);
  expect(destination.pendingSeen.length).toBe(burst.length);

  // Later messages: delivered by the new holder alone, once each.
  destination.hold = undefined;
  confirm();
  const later = source.mine([{}, {}, {}]).map((m) => m.warpMessageId);
  await eventually('later delivered', async () => (await Promise.all(later.map((id) => standby.store.get(id)))).every((r) => r?.status === 'delivered'));
  const perMessage = destination.transactionsPerMessage();
  expect([...perMessage.keys()].sort()).toEqual([...burst, ...later].sort());
  expect([...perMessage.values()].every((n) => n === 1)).toBe(true);
  // The cut-off relayer, its receipts now in, still sent nothing more.
  await new Promise((r) => setTimeout(r, 500));
  expect(destination.transactions).toHaveLength(burst.length + later.length);
}, 90_000);

it('a standby whose Redis is gone holds nothing and sends nothing; with Redis back one relayer delivers', async () => {
  const own = await startRedis();
  cleanups.push(() => own.stop());
  const source = new FakeSource();
  const destination = new FakeDestination();
  const conn = new SharedConnection({ url: own.url, keyPrefix: 'down:', commandTimeoutMs: 1_000, connectTimeoutMs: 5_000 });
  await conn.connect();
  const store = new RedisRelayerStore(conn);
  const leases = new RedisRouteLeases(conn, { ttlMs: TTL_MS, pollEveryMs: 100 });
  const h = harness({ source, destination, store, leases, limits: { leaseMarginMs: 300 } });
  cleanups.push(
    () => h.relayer.stop(),
    () => conn.close(),
  );
  await h.relayer.start();
  await eventually('holds', () => leases.holds(ROUTE, 0));
  await eventually('runs', () => h.relayer.routes()[0]!.checkpoint !== undefined);
  await own.stop();
  await eventually('lease lapsed', () => !leases.holds(ROUTE, 0), TTL_MS + 15_000);
  const during = source.mine([{}, {}]).map((m) => m.warpMessageId);
  await new Promise((r) => setTimeout(r, TTL_MS));
  expect(destination.transactions).toHaveLength(0);
  // Back, but empty (this test's Redis keeps nothing): the route starts again from its start height.
  await own.restart();
  await eventually('delivered after Redis is back', () => during.every((id) => destination.transactions.some((t) => t.warpMessageId === id)), 30_000);
  expect(destination.transactions.map((t) => t.warpMessageId).sort()).toEqual([...during].sort());
}, 90_000);

it('a relayer on a short lease (shorter than the default broadcast margin) delivers, and a healthy holder never refuses to broadcast', async () => {
  // relayer.leaseTtlMs may be as short as 1 s, and the engine's default margin is 2 s: a margin
  // fixed above what a renewed lease ever has left would refuse every broadcast, and one just
  // below it would refuse those between two renewals.
  const source = new FakeSource();
  const destination = new FakeDestination();
  const conn = new SharedConnection({ url: redis.url, keyPrefix: 'short:', commandTimeoutMs: 1_000, connectTimeoutMs: 5_000 });
  await conn.connect();
  const store = new RedisRelayerStore(conn);
  const leases = new RedisRouteLeases(conn, { ttlMs: 1_800 });
  const h = harness({ source, destination, store, leases }); // the default leaseMarginMs
  cleanups.push(
    () => h.relayer.stop(),
    () => conn.close(),
  );
  await h.relayer.start();
  await eventually('runs', () => h.relayer.routes()[0]!.checkpoint !== undefined);
  const sent: Hex[] = [];
  // Over several renewal periods, so some broadcasts fall late in one.
  for (let i = 0; i < 6; i++) {
    sent.push(...source.mine([{}, {}]).map((m) => m.warpMessageId));
    await new Promise((r) => setTimeout(r, 250));
  }
  await eventually('delivered', () => sent.every((id) => destination.transactions.some((t) => t.warpMessageId === id)), 20_000);
  expect(destination.transactions).toHaveLength(sent.length);
  expect(h.logger.entries.filter((e) => e.msg?.includes('interrupted'))).toEqual([]);
}, 60_000);
