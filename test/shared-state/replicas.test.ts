// Three replicas (`warpgate serve` processes) on one devnet and one Redis, behind no balancer:
// the test spreads requests itself, as a balancer would, and names clients with
// X-Forwarded-For (trustProxy: loopback). What users of a replicated deployment rely on: a
// message signed on one replica costs another no validator request; identical requests on
// several replicas make one collection; a client's rate limit holds across replicas; a replica
// killed mid-collection leaves the others answering; Redis going away fails no request and
// coming back is noticed; a corrupted shared entry changes no answer and penalises nobody.
// Validator requests are counted from each replica's warpgate_peer_requests_total.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import type { CanonicalSet } from '../../src/validators/canonical-set.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { parseSignedMessage } from '../../src/warp/signed-message.js';
import { parseUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { cleanEnv, postJson, request, scrape, startWarpgate, waitFor, type JsonAnswer, type WarpgateProcess } from '../ops/helpers.js';
import { startRedis, type TestRedis } from './redis-server.js';

const PREFIX = 'wgtest:';
/** Every signer answers this late: collections overlap, and a replica can be killed in the middle of one. */
const SIGNER_DELAY_MS = 1_000;
const DEADLINE_MS = 30_000;
const LEASE_MS = 1_000;
const PER_MINUTE = 10;
const PATH = '/v1/signatureAggregator/fuji/aggregateSignatures';

interface Replica {
  name: string;
  url: string;
  wg: WarpgateProcess;
}

let devnet: Devnet;
let redis: TestRedis;
let inspect: Redis;
let set: CanonicalSet;
const replicas: Replica[] = [];
let clients = 0;
/** A fresh client address for each request that is not about rate limits. */
const nextClient = (): string => `198.51.100.${++clients % 250}`;
const [A, B, C] = [0, 1, 2];

function aggregate(replica: Replica, messageHex: string, client = nextClient()): Promise<JsonAnswer> {
  return postJson(`${replica.url}${PATH}`, { message: messageHex }, { 'x-forwarded-for': client });
}

/** Validator requests a replica has made since it started (every transport, every outcome). */
async function validatorRequests(replica: Replica): Promise<number> {
  return (await scrape(replica.url)).sum('warpgate_peer_requests_total');
}

async function counter(replica: Replica, name: string, labels: Record<string, string> = {}): Promise<number> {
  return (await scrape(replica.url)).sum(name, labels);
}

function expectSigned(answer: JsonAnswer, messageHex: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  const signed = parseSignedMessage(hexToBytes(answer.body.signedMessage as string));
  expect(bytesToHex(signed.unsigned.bytes)).toBe(messageHex);
  const verdict = verifySignedMessage(signed, set, 67, devnet.genesis.networkId);
  expect(verdict.reason).toBeUndefined();
  expect(verdict.valid).toBe(true);
}

const messageIdHex = (messageHex: string): string => bytesToHex(parseUnsignedMessage(hexToBytes(messageHex)).id);
const sigKey = (messageHex: string): string => `${PREFIX}sig:v1:${messageIdHex(messageHex)}`;

async function startReplica(name: string): Promise<Replica> {
  const dir = mkdtempSync(join(tmpdir(), `warpgate-replica-${name}-`));
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      upstreams: { node: devnet.node.url },
      peers: devnet.config.peers,
      p2p: { enabled: false },
      localNetworkId: devnet.genesis.networkId,
      readiness: { subnets: [devnet.info.subnetId] },
      workers: { threads: 1 },
      aggregation: { deadlineMs: DEADLINE_MS, requestTimeoutMs: 10_000, fanOutExtraPercent: 100 },
      rateLimit: { aggregationsPerMinute: PER_MINUTE },
      trustProxy: ['loopback'],
      redis: { url: redis.url, keyPrefix: PREFIX, leaseMs: LEASE_MS },
      status: { refreshMs: 250 },
    }),
  );
  const wg = startWarpgate(['serve', '--config', file], cleanEnv());
  const line = await wg.waitForLine((l) => l.includes('"warpgate listening"'), 120_000);
  const url = (JSON.parse(line) as { url: string }).url;
  return { name, url, wg };
}

beforeAll(async () => {
  redis = await startRedis();
  inspect = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  // The test stops Redis on purpose; this client's reconnection attempts are expected to fail.
  inspect.on('error', () => undefined);
  await inspect.connect();
  devnet = await startDevnet({ validators: 6, transport: 'ws', port: 0, signerDelayMs: SIGNER_DELAY_MS, logger: pino({ level: 'silent' }), configOverrides: { 'workers.threads': 1 } });
  set = await devnet.service.sets.get(devnet.genesis.subnetId, 0);
  replicas.push(...(await Promise.all(['A', 'B', 'C'].map(startReplica))));
  // Each replica dials every signer itself: ready once all of them are connected.
  for (const r of replicas) {
    await waitFor(`${r.name} connected to every signer`, async () => {
      const status = await request(`${r.url}/status.json`);
      return status.body.peers?.connected === devnet.info.signers && status.body.sharedState?.state === 'connected' ? true : undefined;
    }, 120_000, 200);
  }
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(replicas.map((r) => r.wg.kill()));
  inspect?.disconnect();
  await devnet?.close();
  await redis?.stop();
}, 60_000);

describe('three replicas sharing one Redis', () => {
  it('a message signed on replica A is answered by B with no validator request', async () => {
    const message = devnet.exampleMessageHex('signed on A, asked on B');
    expectSigned(await aggregate(replicas[A]!, message), message);
    expect(await validatorRequests(replicas[A]!)).toBeGreaterThan(0);

    const before = await validatorRequests(replicas[B]!);
    const hitsBefore = await counter(replicas[B]!, 'warpgate_shared_cache_total', { result: 'hit' });
    expectSigned(await aggregate(replicas[B]!, message), message);
    expect(await validatorRequests(replicas[B]!)).toBe(before);
    expect(await counter(replicas[B]!, 'warpgate_shared_cache_total', { result: 'hit' })).toBe(hitsBefore + 1);
  }, 120_000);

  it('30 identical concurrent requests spread over the three make one collection', async () => {
    const message = devnet.exampleMessageHex('thirty at once');
    const before = await Promise.all(replicas.map(validatorRequests));
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => aggregate(replicas[i % 3]!, message)));
    for (const a of answers) expectSigned(a, message);
    // Requests cut short by the answer are counted as they end.
    await new Promise((r) => setTimeout(r, SIGNER_DELAY_MS + 500));
    const after = await Promise.all(replicas.map(validatorRequests));
    const asked = after.reduce((sum, n, i) => sum + n - before[i]!, 0);
    // One collection asks each signer at most once (fanOutExtraPercent 100 asks them all);
    // a collection per replica would have asked three times as many.
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(devnet.info.signers);
    const collecting = after.map((n, i) => n - before[i]!).filter((n) => n > 0);
    expect(collecting).toHaveLength(1);
    const waiters = (await Promise.all(replicas.map((r) => counter(r, 'warpgate_coalesced_requests_total', { role: 'waiter' })))).reduce((a, n) => a + n, 0);
    expect(waiters).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("a client's rate limit holds across replicas, and a trusted proxy's X-Forwarded-For names the client", async () => {
    const client = '203.0.113.7';
    // Budget is spent before the body is read: malformed bodies cost as much as good ones.
    const statuses: number[] = [];
    for (let i = 0; i < PER_MINUTE; i++) {
      statuses.push((await postJson(`${replicas[i % 3]!.url}${PATH}`, {}, { 'x-forwarded-for': client })).status);
    }
    expect(statuses.every((s) => s === 400)).toBe(true);
    for (const r of replicas) {
      const refused = await postJson(`${r.url}${PATH}`, {}, { 'x-forwarded-for': client });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Another client behind the same balancer has its own budget.
    expect((await postJson(`${replicas[A]!.url}${PATH}`, {}, { 'x-forwarded-for': '203.0.113.8' })).status).toBe(400);
  }, 60_000);

  it('a corrupted shared entry: the answer is still correct, the entry is gone, no validator is penalised', async () => {
    const message = devnet.exampleMessageHex('corrupted in Redis');
    const other = devnet.exampleMessageHex('another message');
    expectSigned(await aggregate(replicas[A]!, message), message);
    expectSigned(await aggregate(replicas[A]!, other), other);
    const key = sigKey(message);
    const entries = await inspect.hgetallBuffer(key);
    const otherEntries = await inspect.hgetallBuffer(sigKey(other));
    // A well-formed signature by the same validator over another message, and bytes that are no signature.
    const wrongPk = Object.keys(entries).find((pk) => otherEntries[pk] !== undefined);
    const malformedPk = Object.keys(entries).find((pk) => pk !== wrongPk);
    expect(wrongPk).toBeDefined();
    expect(malformedPk).toBeDefined();
    const foreign = otherEntries[wrongPk!]!;
    const garbage = Buffer.concat([Buffer.of(1), Buffer.alloc(96, 0xab)]);
    await inspect.hset(key, wrongPk!, foreign, malformedPk!, garbage);

    const invalidBefore = await counter(replicas[B]!, 'warpgate_signature_responses_total', { result: 'invalid' });
    expectSigned(await aggregate(replicas[B]!, message), message);
    expect(await inspect.hgetBuffer(key, wrongPk!)).not.toEqual(foreign);
    expect(await inspect.hgetBuffer(key, malformedPk!)).not.toEqual(garbage);
    expect(await counter(replicas[B]!, 'warpgate_shared_cache_total', { result: 'invalid' })).toBeGreaterThanOrEqual(2);
    expect(await counter(replicas[B]!, 'warpgate_signature_responses_total', { result: 'invalid' })).toBe(invalidBefore);
    const status = await request(`${replicas[B]!.url}/status.json`);
    const penalties = (status.body.subnets as { validators: { penalties: number }[] }[]).flatMap((s) => s.validators).reduce((a, v) => a + v.penalties, 0);
    expect(penalties).toBe(0);
  }, 120_000);

  it('kill -9 of the replica holding a coalesced request mid-collection: the others still answer within their deadline', async () => {
    const message = devnet.exampleMessageHex('the holder dies');
    const started = Date.now();
    const onA = aggregate(replicas[A]!, message).catch((err: unknown) => err);
    // A lease held, not the done marker an earlier request's holder left.
    const held = async (): Promise<true | undefined> => {
      for (const key of await inspect.keys(`${PREFIX}lease:v1:*`)) if ((await inspect.get(key)) !== 'done') return true;
      return undefined;
    };
    const lease = await waitFor('replica A to take the lease', held, 30_000, 5);
    expect(lease).toBe(true);
    const onB = aggregate(replicas[B]!, message);
    const onC = aggregate(replicas[C]!, message);
    await new Promise((r) => setTimeout(r, 200));
    replicas[A]!.wg.child.kill('SIGKILL');
    const [b, c] = await Promise.all([onB, onC]);
    expectSigned(b, message);
    expectSigned(c, message);
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
    expect(await onA).toBeInstanceOf(Error);
    const takeovers = (await counter(replicas[B]!, 'warpgate_coalesced_requests_total', { role: 'takeover' })) + (await counter(replicas[C]!, 'warpgate_coalesced_requests_total', { role: 'takeover' }));
    expect(takeovers).toBe(1);
  }, 120_000);

  it('Redis stopped under load: no 5xx, /ready and the status page say so; Redis back: shared again', async () => {
    const live = [replicas[B]!, replicas[C]!];
    const statuses: number[] = [];
    const wave = async (n: number, text: string): Promise<void> => {
      const answers = await Promise.all(Array.from({ length: n }, (_, i) => {
        const message = devnet.exampleMessageHex(`${text} ${i}`);
        return aggregate(live[i % 2]!, message).then((a) => {
          expectSigned(a, message);
          return a.status;
        });
      }));
      statuses.push(...answers);
    };
    const first = wave(6, 'before Redis stops');
    await new Promise((r) => setTimeout(r, 300));
    await redis.stop();
    await first;
    await wave(6, 'while Redis is down');
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    for (const r of live) {
      const ready = await request(`${r.url}/ready`);
      expect(ready.status).toBe(200);
      expect(ready.body.sharedState).toMatch(/^shared state unavailable: /);
      const status = await request(`${r.url}/status.json`);
      expect(status.body.sharedState.state).toBe('unavailable');
      const metrics = await scrape(r.url);
      expect(metrics.value('warpgate_shared_state_up')).toBe(0);
      expect(metrics.sum('warpgate_shared_state_unavailable_total')).toBeGreaterThan(0);
    }

    await redis.restart();
    for (const r of live) {
      await waitFor(`${r.name} to rejoin Redis`, async () => ((await request(`${r.url}/ready`)).body.sharedState === 'connected' ? true : undefined), 30_000, 100);
      expect((await scrape(r.url)).value('warpgate_shared_state_up')).toBe(1);
    }
    const message = devnet.exampleMessageHex('after Redis came back');
    expectSigned(await aggregate(live[0]!, message), message);
    const before = await validatorRequests(live[1]!);
    expectSigned(await aggregate(live[1]!, message), message);
    expect(await validatorRequests(live[1]!)).toBe(before);
  }, 180_000);
});
