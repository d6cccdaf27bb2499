// The relayer's Redis state as the service opens it from redis.url: one connection carrying the
// store and the route leases. A standby taking a route over from a relayer that died counts the
// deliveries that relayer had recorded as submitted (and sees their submissions, to wait on them
// rather than send again).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Hex, MessageRecord } from '../../src/relayer/ports.js';
import { openRedisRelayerState, type RedisRelayerState } from '../../src/relayer/store/redis.js';
import { startRedis, type TestRedis } from '../shared-state/redis-server.js';

let redis: TestRedis;
const opened: RedisRelayerState[] = [];
const ROUTE = 'C->L1';

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(opened.map((s) => s.close()));
  await redis?.stop();
});

async function open(events: string[]): Promise<RedisRelayerState> {
  const state = await openRedisRelayerState(
    { url: redis.url, keyPrefix: 'warpgate:', commandTimeoutMs: 1_000, connectTimeoutMs: 5_000, lease: { ttlMs: 1_500, pollEveryMs: 100 } },
    { onLease: (route, change) => events.push(`${route} ${change}`), onInFlightAtTakeover: (route, n) => events.push(`${route} in flight ${n}`) },
  );
  opened.push(state);
  return state;
}

function submitted(n: number): MessageRecord {
  const id = `0x${n.toString(16).padStart(64, '0')}` as Hex;
  return {
    route: ROUTE,
    status: 'submitted',
    version: 1,
    message: {
      warpMessageId: id,
      teleporterMessageId: `0x${(n + 500).toString(16).padStart(64, '0')}`,
      sourceBlockchainId: 'C',
      destinationBlockchainId: 'L1',
      unsignedMessage: '0x00',
      blockNumber: n,
      blockHash: id,
      transactionHash: id,
      logIndex: 0,
      originSenderAddress: `0x${'11'.repeat(20)}`,
      destinationAddress: `0x${'22'.repeat(20)}`,
      requiredGasLimit: 100_000n,
      allowedRelayerAddresses: [],
      receiptCount: 0,
      payloadBytes: 1,
    },
    submissions: [{ txHash: id, from: `0x${'33'.repeat(20)}`, nonce: n, gasLimit: 400_000n, maxFeePerGas: 30n, maxPriorityFeePerGas: 2n, at: 1 }],
    attempts: 1,
    firstSeenAt: n,
    updatedAt: n,
  };
}

it('a standby takes over from a holder that died and counts the deliveries it left in flight', async () => {
  const activeEvents: string[] = [];
  const standbyEvents: string[] = [];
  const active = await open(activeEvents);
  active.leases.start([ROUTE], () => undefined);
  await expect.poll(() => active.leases.holds(ROUTE, 0), { timeout: 10_000 }).toBe(true);
  for (const n of [1, 2, 3]) expect(await active.store.insert(submitted(n).message.warpMessageId, submitted(n))).toBe(true);
  const standby = await open(standbyEvents);
  const gained: string[] = [];
  standby.leases.start([ROUTE], (route, held) => held && gained.push(route));
  expect(standby.health().state).toBe('connected');
  // Dies without releasing: its connection goes, its lease runs out.
  await (active.store as unknown as { conn: { close(): Promise<void> } }).conn.close();
  await expect.poll(() => gained, { timeout: 15_000 }).toEqual([ROUTE]);
  expect(standbyEvents).toEqual([`${ROUTE} takeover`, `${ROUTE} in flight 3`]);
  // What the engine resumes: each submitted record with the transaction to wait on.
  const resumed = await standby.store.list({ route: ROUTE, statuses: ['submitted'], limit: 10 });
  expect(resumed.map((r) => r.submissions[0]!.nonce)).toEqual([1, 2, 3]);
}, 30_000);

it('close releases the leases first: the next relayer just acquires', async () => {
  const events: string[] = [];
  const one = await open(events);
  one.leases.start(['R2'], () => undefined);
  await expect.poll(() => one.leases.holds('R2', 0), { timeout: 10_000 }).toBe(true);
  await one.close();
  const twoEvents: string[] = [];
  const two = await open(twoEvents);
  two.leases.start(['R2'], () => undefined);
  await expect.poll(() => two.leases.holds('R2', 0), { timeout: 10_000 }).toBe(true);
  expect(events).toEqual(['R2 acquired', 'R2 released']);
  expect(twoEvents).toEqual(['R2 acquired']);
}, 30_000);
