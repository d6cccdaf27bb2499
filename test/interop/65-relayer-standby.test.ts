// Active/standby relayers (issue 38) on the real network: two `warpgate relay` processes with the
// harness's relayer configuration plus one `redis.url` (their own redis-server on a free loopback
// port, with an append-only file so a restart keeps the state) and a short lease, paying with the
// same key. The active one killed with SIGKILL mid-burst: the standby takes over and every message
// arrives, one delivery transaction each. The active one paused (SIGSTOP) past its lease, then
// resumed: the other took over, and the paused one sends nothing more: still one transaction per
// message. Redis stopped: neither relayer holds a route or sends; Redis back: the messages sent
// meanwhile are delivered, once each. "Once" is counted on the destination, as 60-relayer does.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanEnv, request, scrape, startWarpgate, waitFor, type WarpgateProcess } from '../ops/helpers.js';
import { startRedis, type TestRedis } from '../shared-state/redis-server.js';
import type { FundedKey } from './paths.js';
import { allDelivered, deliveredCount, DELIVERY_DEADLINE_MS, expectOneDeliveryEach } from './relayer-checks.js';
import { deliveryTransactions, sendBurst, teleporterChains, type SentMessage, type TeleporterChain } from './teleporter.js';

const net = inject('interopNetwork');
const { cChain, l1 } = teleporterChains(net);
const [relayerKey, sender, otherSender] = net.funded as [FundedKey, FundedKey, FundedKey];
/** Short, so the test waits seconds for a takeover, not the default 15. */
const LEASE_TTL_MS = 3_000;
const BURST = 20;
const ROUTES = 2;

interface Relayer {
  name: string;
  url: string;
  proc: WarpgateProcess;
}

const dir = mkdtempSync(join(tmpdir(), 'warpgate-standby-'));
let redis: TestRedis;
const running: Relayer[] = [];

/** `warpgate relay` on the harness's configuration with Redis and a lease of LEASE_TTL_MS; resolves once /ready says 200. */
async function startRelayer(name: string): Promise<Relayer> {
  const base = JSON.parse(readFileSync(net.relayerConfig, 'utf8')) as { relayer: Record<string, unknown> };
  const config = { ...base, redis: { url: redis.url }, relayer: { ...base.relayer, leaseTtlMs: LEASE_TTL_MS, storePath: join(dir, `store-${name}`) } };
  const path = join(dir, `relayer-${name}.json`);
  writeFileSync(path, JSON.stringify(config, null, 2));
  const proc = startWarpgate(['relay', '--config', path], cleanEnv());
  const line = await proc.waitForLine((l) => l.includes('"warpgate listening"'), 120_000);
  const url = (JSON.parse(line) as { url: string }).url;
  await waitFor(`relayer ${name}'s /ready`, async () => ((await request(`${url}/ready`)).status === 200 ? true : undefined), 180_000, 500);
  const relayer = { name, url, proc };
  running.push(relayer);
  return relayer;
}

/** How many routes the relayer says it holds (warpgate_relayer_route_held). */
async function heldRoutes(r: Relayer): Promise<number> {
  return (await scrape(r.url)).sum('warpgate_relayer_route_held');
}

async function waitUntilHolds(r: Relayer, count: number, timeoutMs = 120_000): Promise<void> {
  await waitFor(`relayer ${r.name} holding ${count} routes`, async () => ((await heldRoutes(r)) === count ? true : undefined), timeoutMs, 100);
}

/** The status page's routes: which it holds. */
async function statusRoutes(r: Relayer): Promise<{ id: string; held: boolean }[]> {
  const res = await request(`${r.url}/status.json`);
  expect(res.status).toBe(200);
  return (res.body as { relayer: { routes: { id: string; held: boolean }[] } }).relayer.routes;
}

async function heads(): Promise<{ c: bigint; l: bigint }> {
  return { c: await cChain.client.getBlockNumber(), l: await l1.client.getBlockNumber() };
}

/** `rounds` bursts of BURST each way, both directions at once. */
async function burstsBothWays(rounds: number, label: string): Promise<{ toL1: SentMessage[]; toC: SentMessage[] }> {
  const toL1: SentMessage[] = [];
  const toC: SentMessage[] = [];
  for (let i = 0; i < rounds; i++) {
    const [a, b] = await Promise.all([sendBurst(net, cChain, sender, l1, BURST, `${label} ${i} to L1`), sendBurst(net, l1, otherSender, cChain, BURST, `${label} ${i} to C`)]);
    toL1.push(...a);
    toC.push(...b);
  }
  return { toL1, toC };
}

async function waitForSomeDelivered(sent: { toL1: SentMessage[]; toC: SentMessage[] }, atLeast: number): Promise<number> {
  return waitFor('the first deliveries of the burst', async () => {
    const n = (await deliveredCount(l1, sent.toL1)) + (await deliveredCount(cChain, sent.toC));
    return n >= atLeast ? n : undefined;
  }, DELIVERY_DEADLINE_MS, 250);
}

async function expectEachOnce(sent: { toL1: SentMessage[]; toC: SentMessage[] }, from: { c: bigint; l: bigint }): Promise<void> {
  await Promise.all([allDelivered(l1, sent.toL1), allDelivered(cChain, sent.toC)]);
  await expectOneDeliveryEach(l1, relayerKey.address, sent.toL1, from.l + 1n);
  await expectOneDeliveryEach(cChain, relayerKey.address, sent.toC, from.c + 1n);
}

async function deliveryTransactionsSince(destination: TeleporterChain, fromBlock: bigint): Promise<Hex[]> {
  return (await deliveryTransactions(destination, relayerKey.address, fromBlock)).map((t) => t.hash);
}

let active: Relayer;
let standby: Relayer;

beforeAll(async () => {
  redis = await startRedis({ dataDir: dir });
  active = await startRelayer('a');
  await waitUntilHolds(active, ROUTES);
  standby = await startRelayer('b');
});

afterAll(async () => {
  for (const r of running) await r.proc.kill();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('two warpgate relay processes on one Redis', () => {
  it('one holds every route, the other stands by; the status page and /metrics say which', async () => {
    expect(await heldRoutes(active)).toBe(ROUTES);
    expect(await heldRoutes(standby)).toBe(0);
    expect((await statusRoutes(active)).map((r) => r.held)).toEqual([true, true]);
    expect((await statusRoutes(standby)).map((r) => r.held)).toEqual([false, false]);
    expect((await request(`${standby.url}/ready`)).status).toBe(200);
  });

  it('the active one killed with SIGKILL mid-burst: the standby takes over, every message delivered, one delivery transaction each', async () => {
    const from = await heads();
    const sent = await burstsBothWays(2, 'kill');
    const total = sent.toL1.length + sent.toC.length;
    const deliveredAtKill = await waitForSomeDelivered(sent, 5);
    const killedAt = Date.now();
    active.proc.child.kill('SIGKILL');
    await active.proc.exited(30_000);
    await waitUntilHolds(standby, ROUTES);
    const takeoverMs = Date.now() - killedAt;
    process.stderr.write(`relayer standby: SIGKILL → the standby holds both routes after ${takeoverMs} ms (lease ${LEASE_TTL_MS} ms)\n`);
    expect(deliveredAtKill, 'killed mid-burst').toBeLessThan(total);
    process.stderr.write(`relayer standby: killed with ${deliveredAtKill} of ${total} delivered\n`);

    await expectEachOnce(sent, from);
    const metrics = await scrape(standby.url);
    process.stderr.write(`relayer standby: in flight at takeover ${metrics.sum('warpgate_relayer_in_flight_at_takeover_total')}\n`);
    expect(metrics.sum('warpgate_relayer_lease_changes_total', { change: 'takeover' })).toBe(ROUTES);
    // Reported for each route taken over (what was found may be 0: the count is the figure).
    for (const route of await statusRoutes(standby)) {
      expect(metrics.value('warpgate_relayer_in_flight_at_takeover_total', { route: route.id }), route.id).toBeGreaterThanOrEqual(0);
      expect(route.held).toBe(true);
    }
    const status = (await request(`${standby.url}/status.json`)).body as { relayer: { takeovers: number; inFlightAtTakeover: number } };
    expect(status.relayer).toMatchObject({ takeovers: ROUTES, inFlightAtTakeover: metrics.sum('warpgate_relayer_in_flight_at_takeover_total') });
    [active, standby] = [standby, await startRelayer('c')];
    expect(await heldRoutes(standby)).toBe(0);
  }, 20 * 60_000);

  it('the active one paused (SIGSTOP) past its lease, then resumed: the other took over, the paused one sends nothing more; one delivery transaction each', async () => {
    const from = await heads();
    const sent = await burstsBothWays(2, 'pause');
    await waitForSomeDelivered(sent, 5);
    const paused = active;
    paused.proc.child.kill('SIGSTOP');
    try {
      await waitUntilHolds(standby, ROUTES);
      // Past the paused one's lease by a margin, as a long stall would be.
      await new Promise((r) => setTimeout(r, LEASE_TTL_MS));
    } finally {
      paused.proc.child.kill('SIGCONT');
    }
    // Awake, it sees its lease has run out (its clock ran while it slept) and holds nothing.
    await waitUntilHolds(paused, 0, 30_000);
    const metrics = await scrape(paused.url);
    expect(metrics.sum('warpgate_relayer_lease_changes_total', { change: 'lost' })).toBe(ROUTES);
    expect(await heldRoutes(standby)).toBe(ROUTES);

    await expectEachOnce(sent, from);
    [active, standby] = [standby, paused];
  }, 20 * 60_000);

  it('Redis stopped: neither relayer holds a route or sends; Redis back: the messages sent meanwhile are delivered, once each', async () => {
    await redis.stop();
    await Promise.all([waitUntilHolds(active, 0, 60_000), waitUntilHolds(standby, 0, 60_000)]);
    const from = await heads();
    const sent = await burstsBothWays(1, 'no redis');
    // Long enough for a relayer that did not stop to deliver (a delivery takes a few seconds here).
    await new Promise((r) => setTimeout(r, 5 * LEASE_TTL_MS));
    expect(await heldRoutes(active)).toBe(0);
    expect(await heldRoutes(standby)).toBe(0);
    expect(await deliveredCount(l1, sent.toL1)).toBe(0);
    expect(await deliveredCount(cChain, sent.toC)).toBe(0);
    expect(await deliveryTransactionsSince(l1, from.l + 1n)).toEqual([]);
    expect(await deliveryTransactionsSince(cChain, from.c + 1n)).toEqual([]);

    await redis.restart();
    await waitFor('every route held again', async () => ((await heldRoutes(active)) + (await heldRoutes(standby)) === ROUTES ? true : undefined), 120_000, 250);
    await expectEachOnce(sent, from);
  }, 20 * 60_000);
});
