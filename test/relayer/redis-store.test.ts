// The relayer's Redis store against a real redis-server: insert only once, updates that are
// compare-and-set on the version (of writers racing on separate connections exactly one wins),
// indexes that always agree with the records, checkpoints that only rise, pruning in batches,
// and lookups by Teleporter message ID.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex, MessageRecord, MessageStatus } from '../../src/relayer/ports.js';
import { CorruptRecordError, RedisRelayerStore } from '../../src/relayer/store/redis-store.js';
import { SharedConnection, SharedStateUnavailableError } from '../../src/shared-state/connection.js';
import { startRedis, type TestRedis } from '../shared-state/redis-server.js';

let redis: TestRedis;
let inspect: Redis;
const conns: SharedConnection[] = [];
let prefixes = 0;

async function connect(prefix: string): Promise<SharedConnection> {
  const conn = new SharedConnection({ url: redis.url, keyPrefix: prefix, commandTimeoutMs: 2_000, connectTimeoutMs: 5_000 });
  conns.push(conn);
  expect((await conn.connect()).state).toBe('connected');
  return conn;
}

async function store(prefix = `store${++prefixes}:`): Promise<RedisRelayerStore> {
  return new RedisRelayerStore(await connect(prefix), { pruneBatch: 7 });
}

const ROUTE_A = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5->yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp';
const ROUTE_B = 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp->2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';

function hex(n: number, bytes = 32): Hex {
  return `0x${n.toString(16).padStart(bytes * 2, '0')}`;
}

function record(n: number, over: Partial<MessageRecord> = {}): MessageRecord {
  return {
    route: ROUTE_A,
    status: 'seen',
    version: 1,
    message: {
      warpMessageId: hex(n),
      teleporterMessageId: hex(1_000_000 + n),
      sourceBlockchainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5',
      destinationBlockchainId: 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp',
      unsignedMessage: '0x00000000beef',
      blockNumber: 100 + n,
      blockHash: hex(2_000_000 + n),
      transactionHash: hex(3_000_000 + n),
      logIndex: 0,
      originSenderAddress: hex(1, 20),
      destinationAddress: hex(2, 20),
      requiredGasLimit: 2n ** 70n + BigInt(n),
      allowedRelayerAddresses: [],
      receiptCount: 0,
      payloadBytes: 4,
    },
    submissions: [],
    attempts: 0,
    firstSeenAt: 1_000 + n,
    updatedAt: 1_000 + n,
    ...over,
  };
}

const submission = { txHash: hex(77), from: hex(3, 20), nonce: 5, gasLimit: 300_000n, maxFeePerGas: 25n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, at: 5_000 };

beforeAll(async () => {
  redis = await startRedis();
  inspect = new Redis(redis.url);
  inspect.on('error', () => undefined);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(conns.map((c) => c.close()));
  inspect?.disconnect();
  await redis?.stop();
});

describe('records', () => {
  it('insert stores version 1 once; a second insert of the same ID changes nothing; bigints and submissions round-trip', async () => {
    const s = await store();
    const r = record(1, { version: 9, submissions: [submission] });
    expect(await s.insert(r.message.warpMessageId, r)).toBe(true);
    expect(await s.insert(r.message.warpMessageId, record(1, { status: 'parked', reason: 'second' }))).toBe(false);
    const got = await s.get(r.message.warpMessageId);
    expect(got).toEqual({ ...r, version: 1 });
    expect(got!.message.requiredGasLimit).toBe(2n ** 70n + 1n);
    expect(got!.submissions[0]!.maxFeePerGas).toBe(25n * 10n ** 9n);
    expect(await s.get(hex(999))).toBeUndefined();
  });

  it('update replaces only at the expected version and bumps it', async () => {
    const s = await store();
    const id = hex(2);
    await s.insert(id, record(2));
    const { version: _v, ...base } = record(2);
    expect(await s.update(id, 2, { ...base, status: 'signed' })).toBe(false);
    expect((await s.get(id))!.status).toBe('seen');
    expect(await s.update(id, 1, { ...base, status: 'signed', signedMessage: '0xabcd' })).toBe(true);
    expect(await s.get(id)).toMatchObject({ version: 2, status: 'signed', signedMessage: '0xabcd' });
    expect(await s.update(id, 1, { ...base, status: 'submitted' })).toBe(false);
    expect(await s.update(hex(404), 1, base)).toBe(false);
  });

  it('of writers racing on their own connections to update one version, exactly one wins', async () => {
    const prefix = `race${++prefixes}:`;
    const writers = await Promise.all(Array.from({ length: 8 }, () => store(prefix)));
    const id = hex(3);
    await writers[0]!.insert(id, record(3));
    for (let round = 1; round <= 5; round++) {
      const { version: _v, ...base } = record(3);
      const results = await Promise.all(writers.map((w, i) => w.update(id, round, { ...base, status: 'signed', reason: `writer ${i}`, attempts: round })));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await writers[3]!.get(id)).toMatchObject({ version: round + 1, reason: `writer ${winner}`, attempts: round });
    }
  });

  it('finds a record by its Teleporter message ID', async () => {
    const s = await store();
    const r = record(4);
    await s.insert(r.message.warpMessageId, r);
    expect((await s.getByTeleporterId(r.message.teleporterMessageId))?.message.warpMessageId).toBe(r.message.warpMessageId);
    expect(await s.getByTeleporterId(hex(12345))).toBeUndefined();
  });

  it('a record that is not valid JSON is a CorruptRecordError naming it, not a crash elsewhere', async () => {
    const prefix = `corrupt${++prefixes}:`;
    const s = await store(prefix);
    await s.insert(hex(5), record(5));
    await inspect.hset(`${prefix}{relayer}:v1:msg:${hex(5)}`, 'rec', '{not json');
    await expect(s.get(hex(5))).rejects.toThrow(CorruptRecordError);
    await expect(s.get(hex(5))).rejects.toThrow(hex(5));
  });

  it('a route cannot change under an update (the indexes are per route)', async () => {
    const s = await store();
    await s.insert(hex(6), record(6));
    const { version: _v, ...base } = record(6);
    await expect(s.update(hex(6), 1, { ...base, route: ROUTE_B })).rejects.toThrow(/cannot change route/);
    expect((await s.get(hex(6)))!.version).toBe(1);
  });
});

describe('list and its indexes', () => {
  it('lists by route and status, oldest first, at most limit; the indexes follow every status change', async () => {
    const s = await store();
    const statuses: MessageStatus[] = ['seen', 'signed', 'submitted', 'parked', 'delivered', 'skipped'];
    for (let n = 1; n <= 24; n++) {
      const route = n % 2 === 0 ? ROUTE_A : ROUTE_B;
      // Inserted newest first, so "oldest first" is not just insertion order.
      const r = record(100 - n, { route, firstSeenAt: 10_000 - n });
      await s.insert(r.message.warpMessageId, r);
      const { version: _v, ...base } = r;
      expect(await s.update(r.message.warpMessageId, 1, { ...base, status: statuses[n % statuses.length]! })).toBe(true);
    }
    const all = await s.list({ limit: 100 });
    expect(all).toHaveLength(24);
    expect(all.map((r) => r.firstSeenAt)).toEqual([...all.map((r) => r.firstSeenAt)].sort((a, b) => a - b));
    for (const route of [ROUTE_A, ROUTE_B]) {
      for (const status of statuses) {
        const listed = await s.list({ route, statuses: [status], limit: 100 });
        const expected = all.filter((r) => r.route === route && r.status === status);
        expect(listed.map((r) => r.message.warpMessageId).sort()).toEqual(expected.map((r) => r.message.warpMessageId).sort());
      }
    }
    const two = await s.list({ route: ROUTE_A, statuses: ['seen', 'parked', 'submitted'], limit: 3 });
    const wanted = all.filter((r) => r.route === ROUTE_A && ['seen', 'parked', 'submitted'].includes(r.status));
    expect(two.map((r) => r.message.warpMessageId)).toEqual(wanted.slice(0, 3).map((r) => r.message.warpMessageId));
    expect(await s.count(ROUTE_A, 'submitted')).toBe(all.filter((r) => r.route === ROUTE_A && r.status === 'submitted').length);
    expect(await s.list({ limit: 0 })).toEqual([]);
  });

  it('records first seen in the same millisecond list in the order they were inserted', async () => {
    const s = await store();
    // IDs descending, so neither ID order nor chance gives insertion order.
    const ids = [9, 7, 5, 3, 1].map((n) => 800 + n);
    for (const n of ids) await s.insert(hex(n), record(n, { firstSeenAt: 42, status: 'parked' }));
    const listed = await s.list({ route: ROUTE_A, statuses: ['parked', 'seen'], limit: 10 });
    expect(listed.map((r) => r.message.warpMessageId)).toEqual(ids.map((n) => hex(n)));
    const { version: _v, ...base } = record(ids[0]!, { firstSeenAt: 42 });
    expect(await s.update(hex(ids[0]!), 1, { ...base, status: 'seen' })).toBe(true);
    // Still first after moving to another status (it keeps its place, not the time of the move).
    expect((await s.list({ route: ROUTE_A, statuses: ['seen', 'parked'], limit: 2 })).map((r) => r.message.warpMessageId)).toEqual([hex(ids[0]!), hex(ids[1]!)]);
  });

  it('racing writers moving records through states leave every record in exactly the index of its status', async () => {
    const prefix = `idx${++prefixes}:`;
    const writers = await Promise.all(Array.from({ length: 4 }, () => store(prefix)));
    const ids = Array.from({ length: 20 }, (_, i) => hex(500 + i));
    for (const [i, id] of ids.entries()) await writers[0]!.insert(id, record(500 + i));
    const path: MessageStatus[] = ['signed', 'submitted', 'parked', 'submitted', 'delivered'];
    await Promise.all(
      writers.map(async (w) => {
        for (let step = 0; step < 40; step++) {
          const id = ids[(step * 7 + writers.indexOf(w)) % ids.length]!;
          const cur = await w.get(id);
          if (!cur || cur.status === 'delivered') continue;
          const { version, ...base } = cur;
          await w.update(id, version, { ...base, status: path[Math.min(version - 1, path.length - 1)]!, updatedAt: 2_000 + step });
        }
      }),
    );
    const base = `${prefix}{relayer}:v1:`;
    for (const [i, id] of ids.entries()) {
      const r = (await writers[1]!.get(id))!;
      for (const status of ['seen', 'signed', 'submitted', 'delivered', 'skipped', 'parked']) {
        const member = (await inspect.hget(`${base}msg:${id}`, 'm'))!;
        expect(member.endsWith(`:${id}`)).toBe(true);
        const inRoute = await inspect.zscore(`${base}idx:r:${ROUTE_A}:${status}`, member);
        const inAll = await inspect.zscore(`${base}idx:s:${status}`, member);
        expect([inRoute !== null, inAll !== null], `${id} (${i}) in ${status}, stored ${r.status}`).toEqual([status === r.status, status === r.status]);
      }
      expect((await inspect.zscore(`${base}done`, id)) !== null).toBe(r.status === 'delivered');
    }
  });
});

describe('checkpoints', () => {
  it('only rise, per route, including under racing writers', async () => {
    const prefix = `ckpt${++prefixes}:`;
    const [a, b] = [await store(prefix), await store(prefix)];
    expect(await a.checkpoint(ROUTE_A)).toBeUndefined();
    await a.advanceCheckpoint(ROUTE_A, 50);
    await a.advanceCheckpoint(ROUTE_A, 40);
    expect(await b.checkpoint(ROUTE_A)).toBe(50);
    const heights = Array.from({ length: 60 }, (_, i) => (i * 37) % 200);
    await Promise.all(heights.map((h, i) => (i % 2 ? a : b).advanceCheckpoint(ROUTE_A, h)));
    expect(await a.checkpoint(ROUTE_A)).toBe(Math.max(50, ...heights));
    expect(await a.checkpoint(ROUTE_B)).toBeUndefined();
    await expect(a.advanceCheckpoint(ROUTE_B, -1)).rejects.toThrow(RangeError);
  });
});

describe('prune', () => {
  it('forgets delivered and skipped messages updated before the cut, in batches, with their index entries; keeps the rest', async () => {
    const prefix = `prune${++prefixes}:`;
    const s = await store(prefix);
    const statuses: MessageStatus[] = ['delivered', 'skipped', 'submitted', 'parked', 'seen'];
    const kept: Hex[] = [];
    for (let n = 0; n < 50; n++) {
      const status = statuses[n % statuses.length]!;
      const old = n < 40;
      const r = record(700 + n, { status, updatedAt: old ? 1_000 : 9_000 });
      await s.insert(r.message.warpMessageId, r);
      if (!(old && (status === 'delivered' || status === 'skipped'))) kept.push(r.message.warpMessageId);
    }
    // 16 old delivered/skipped: more than two batches of 7.
    expect(await s.prune(5_000)).toBe(16);
    expect(await s.prune(5_000)).toBe(0);
    const left = await s.list({ limit: 1_000 });
    expect(left.map((r) => r.message.warpMessageId).sort()).toEqual([...kept].sort());
    const keys = (await inspect.keys(`${prefix}*`)).filter((k) => k.includes(':msg:'));
    expect(keys).toHaveLength(kept.length);
    expect(await inspect.zcard(`${prefix}{relayer}:v1:done`)).toBe(4);
    expect(await s.getByTeleporterId(record(700).message.teleporterMessageId)).toBeUndefined();
    // A message moved back out of a final state is not pruned by its old time.
    const r = (await s.get(hex(745)))!;
    const { version, ...base } = r;
    expect(await s.update(r.message.warpMessageId, version, { ...base, status: 'parked' })).toBe(true);
    expect(await s.prune(10_000)).toBe(4 - 1);
    expect((await s.get(hex(745)))!.status).toBe('parked');
  });
});

describe('Redis unavailable', () => {
  it('every operation rejects at once with SharedStateUnavailableError; nothing claims success', async () => {
    const lonely = await startRedis();
    const conn = new SharedConnection({ url: lonely.url, keyPrefix: 'down:', commandTimeoutMs: 500, connectTimeoutMs: 2_000 });
    conns.push(conn);
    await conn.connect();
    const s = new RedisRelayerStore(conn);
    await lonely.stop();
    await expect.poll(() => conn.up, { timeout: 10_000 }).toBe(false);
    await expect(s.insert(hex(1), record(1))).rejects.toThrow(SharedStateUnavailableError);
    await expect(s.get(hex(1))).rejects.toThrow(SharedStateUnavailableError);
    await expect(s.advanceCheckpoint(ROUTE_A, 3)).rejects.toThrow(SharedStateUnavailableError);
  }, 30_000);
});
