// The state `warpgate relay` opens: without redis.url the embedded store in relayer.storePath
// with its route always held; with redis.url the Redis store and one lease per route, so two
// relayers on one Redis deliver a route from one of them at a time, and the other takes over
// when the holder stops (its lease released or expired). The lease changes reach the metrics.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAYER_PARTS } from '../../src/cli/relayer-parts.js';
import { loadConfig } from '../../src/config/config.js';
import { RelayerMetrics } from '../../src/service/relayer-metrics.js';
import type { RelayerState } from '../../src/service/relayer.js';
import { startRedis, type TestRedis } from '../shared-state/redis-server.js';

const ROUTE = 'C->L1';
const logger = pino({ level: 'silent' });
let redis: TestRedis;
const dirs: string[] = [];
const opened: RelayerState[] = [];

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(opened.map((s) => s.close()));
  await redis?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function config(overrides: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'warpgate-relayer-parts-'));
  dirs.push(dir);
  return loadConfig({ env: {}, overrides: { 'relayer.storePath': dir, ...overrides } });
}

async function waitUntil(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the relayer's state as `warpgate relay` opens it", () => {
  it('without redis.url: the embedded store, the route always held', async () => {
    const metrics = new RelayerMetrics(new Registry(), 1, logger);
    const state = await RELAYER_PARTS.openState(config({}), logger, metrics.leaseEvents);
    opened.push(state);
    state.leases.start([ROUTE], () => undefined);
    expect(state.leases.holds(ROUTE, 60_000)).toBe(true);
    await state.store.advanceCheckpoint(ROUTE, 7);
    expect(await state.store.checkpoint(ROUTE)).toBe(7);
  });

  it('with redis.url: one holder at a time; the other takes over when it stops; the metrics count both', async () => {
    const registries = [new Registry(), new Registry()];
    const metrics = registries.map((r) => new RelayerMetrics(r, 1, logger));
    const shared = { 'redis.url': redis.url, 'relayer.leaseTtlMs': 1_500 };
    const states = await Promise.all(metrics.map((m) => RELAYER_PARTS.openState(config(shared), logger, m.leaseEvents)));
    opened.push(...states);
    for (const s of states) s.leases.start([ROUTE], () => undefined);
    await waitUntil('one relayer holds the route', () => states.some((s) => s.leases.holds(ROUTE, 0)));
    const holder = states.findIndex((s) => s.leases.holds(ROUTE, 0));
    const standby = 1 - holder;
    expect(states[standby]!.leases.holds(ROUTE, 0)).toBe(false);

    // Both see one store: what the holder writes, the standby reads.
    await states[holder]!.store.advanceCheckpoint(ROUTE, 42);
    expect(await states[standby]!.store.checkpoint(ROUTE)).toBe(42);

    await states[holder]!.close();
    await waitUntil('the standby takes the route', () => states[standby]!.leases.holds(ROUTE, 0));
    const text = await registries[standby]!.metrics();
    expect(text).toMatch(new RegExp(`warpgate_relayer_lease_changes_total\\{route="${ROUTE}",change="(acquired|takeover)"\\} 1`));
    expect(await registries[holder]!.metrics()).toMatch(new RegExp(`warpgate_relayer_lease_changes_total\\{route="${ROUTE}",change="released"\\} 1`));
  }, 60_000);
});
