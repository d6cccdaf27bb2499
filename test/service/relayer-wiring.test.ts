// The relayer wired into a running service with fakes of its parts (the engine, the EVM
// adapters and the store land from their own branches): what the engine is given (routes, one
// source and one destination per chain, limits, keys), /ready with the relayer's reasons, the
// status page's relayer panel, the metrics from its events, `relay` mode serving no aggregation
// API, and a close that stops the relayer and closes its store.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import type { RelayerOptions } from '../../src/relayer/options.js';
import type { RelayerLeaseEvents } from '../../src/service/relayer-metrics.js';
import type { RelayerParts, DestinationOptions } from '../../src/service/relayer.js';
import { startService, type Service } from '../../src/service/start.js';
import { FakeRelayer, fakeDestination, fakeSource, fakeStore } from '../relayer/fakes-surface.js';

const C_CHAIN = 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp';
const L1 = '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm';
const TELEPORTER = '0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf';
const KEY = '0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027';
const TOKEN = 'a-manual-relay-token-for-tests';

const dir = mkdtempSync(join(tmpdir(), 'warpgate-relayer-wiring-'));
const services: Service[] = [];
afterAll(async () => {
  await Promise.allSettled(services.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

function relayerConfig(extra: Record<string, unknown> = {}) {
  const file = join(dir, `${services.length}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      workers: { threads: 1 },
      p2p: { enabled: false },
      relayer: {
        chains: [
          { blockchainId: C_CHAIN, rpcUrl: 'http://127.0.0.1:9/ext/bc/C/rpc', teleporterAddress: TELEPORTER },
          { blockchainId: L1, rpcUrl: 'http://127.0.0.1:9/ext/bc/l1/rpc', wsUrl: 'ws://127.0.0.1:9/ext/bc/l1/ws', teleporterAddress: TELEPORTER },
        ],
        routes: [{ source: C_CHAIN, destination: L1 }, { source: L1, destination: C_CHAIN, startHeight: 5 }],
        keys: [{ env: 'WIRING_KEY' }],
        manualRelayToken: TOKEN,
        maxFeePerGasGwei: 30,
        lowBalanceGwei: 1000,
        ...extra,
      },
    }),
  );
  process.env.WIRING_KEY = KEY;
  return loadConfig({ file, env: {} });
}

function fakeParts() {
  const relayer = new FakeRelayer();
  const store = fakeStore();
  const seen: { deps?: RelayerOptions; leaseEvents?: RelayerLeaseEvents; sources: string[]; destinations: { chain: string; options: DestinationOptions }[] } = { sources: [], destinations: [] };
  const parts: RelayerParts = {
    createRelayer: (deps) => {
      seen.deps = deps;
      return relayer;
    },
    createSource: (chain) => (seen.sources.push(chain.blockchainId), fakeSource(chain.blockchainId)),
    createDestination: (chain, options) => (seen.destinations.push({ chain: chain.blockchainId, options }), fakeDestination(chain.blockchainId)),
    openState: async (_config, _logger, leaseEvents) => {
      seen.leaseEvents = leaseEvents;
      return { store, leases: { holds: () => true, start: () => undefined, stop: async () => undefined }, close: () => store.close() };
    },
  };
  return { parts, relayer, store, seen };
}

async function start(parts: RelayerParts, relayOnly = false): Promise<Service> {
  const service = await startService(relayerConfig(), { logger: pino({ level: 'silent' }), relayer: parts, relayOnly });
  services.push(service);
  return service;
}

describe('the relayer in a running service', () => {
  it('gives the engine its routes, one source and destination per chain, the limits, and the keys to the destinations only', async () => {
    const { parts, relayer, seen } = fakeParts();
    await start(parts);
    expect(relayer.started).toBe(1);
    expect(seen.deps!.routes.map((r) => [r.id, r.startHeight, r.maxRequiredGasLimit])).toEqual([
      [`${C_CHAIN}->${L1}`, 'head', 2_000_000n],
      [`${L1}->${C_CHAIN}`, 5, 2_000_000n],
    ]);
    expect(Object.keys(seen.deps!.sources).sort()).toEqual([C_CHAIN, L1].sort());
    expect(seen.destinations.map((d) => d.chain).sort()).toEqual([C_CHAIN, L1].sort());
    const options = seen.destinations[0]!.options;
    expect(options.maxFeePerGasWei).toBe(30_000_000_000n);
    expect(options.keys.map((k) => k.address)).toEqual(['0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc']);
    expect(options.keys[0]!.privateKey()).toBe(KEY);
    expect(seen.deps!.limits).toEqual({ maxInFlight: 32, maxBacklog: 10_000, catchUpRange: 1000, pruneAfterMs: 604_800_000 });
  });

  it('/ready carries the relayer’s reasons; /status.json its panel; /metrics its figures from events', async () => {
    const { parts, relayer, seen } = fakeParts();
    const service = await start(parts);
    relayer.routeStates = [
      { id: `${C_CHAIN}->${L1}`, sourceBlockchainId: C_CHAIN, destinationBlockchainId: L1, checkpoint: 90, head: 100, held: true, inFlight: 2, parked: 1 },
      { id: `${L1}->${C_CHAIN}`, sourceBlockchainId: L1, destinationBlockchainId: C_CHAIN, checkpoint: undefined, head: undefined, held: true, inFlight: 0, parked: 0, problem: 'http://127.0.0.1:9/ext/bc/l1/rpc does not answer (ECONNREFUSED); retrying' },
    ];
    relayer.ready = { ready: false, reasons: [`${L1}->${C_CHAIN}: http://127.0.0.1:9/ext/bc/l1/rpc does not answer (ECONNREFUSED); retrying`] };
    const ready = await fetch(`${service.url}/ready`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { reasons: string[]; relayer: { ready: boolean; routes: unknown[] } };
    expect(body.reasons).toContain(`relayer: ${L1}->${C_CHAIN}: http://127.0.0.1:9/ext/bc/l1/rpc does not answer (ECONNREFUSED); retrying`);
    expect(body.relayer.routes).toHaveLength(2);

    const events = seen.deps!.events!;
    events.outcome!(`${C_CHAIN}->${L1}`, 'delivered');
    events.deliveryLatency!(`${C_CHAIN}->${L1}`, 3);
    events.gasUsed!(`${C_CHAIN}->${L1}`, 210_000n);
    events.outcome!(`${C_CHAIN}->${L1}`, 'skipped', 'already delivered');
    events.retry!(`${C_CHAIN}->${L1}`, 'the destination did not answer');
    seen.destinations[0]!.options.onBalance('0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc', 999n * 1_000_000_000n);
    seen.leaseEvents!.onLease!(`${C_CHAIN}->${L1}`, 'takeover');
    seen.leaseEvents!.onInFlightAtTakeover!(`${C_CHAIN}->${L1}`, 3);
    seen.leaseEvents!.onLease!(`${L1}->${C_CHAIN}`, 'acquired');
    const status = (await (await fetch(`${service.url}/status.json`)).json()) as { relayer: Record<string, unknown> };
    expect(status.relayer).toMatchObject({ delivered: 1, skipped: 1, retries: 1, takeovers: 1, inFlightAtTakeover: 3, lowBalanceKeys: [{ address: '0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc', balanceWei: '999000000000' }] });
    expect(status.relayer.routes).toEqual([
      { id: `${C_CHAIN}->${L1}`, checkpoint: 90, head: 100, held: true, inFlight: 2, parked: 1 },
      expect.objectContaining({ checkpoint: null, problem: expect.stringMatching(/does not answer/) }),
    ]);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    const route = `${C_CHAIN}->${L1}`;
    expect(metrics).toContain(`warpgate_relayer_messages_total{route="${route}",outcome="delivered"} 1`);
    expect(metrics).toContain(`warpgate_relayer_delivery_seconds_bucket{le="3",route="${route}"} 1`);
    expect(metrics).toContain(`warpgate_relayer_delivery_seconds_bucket{le="2",route="${route}"} 0`);
    expect(metrics).toContain(`warpgate_relayer_gas_used_total{route="${route}"} 210000`);
    expect(metrics).toContain(`warpgate_relayer_checkpoint_height{route="${route}"} 90`);
    expect(metrics).toContain(`warpgate_relayer_checkpoint_lag_blocks{route="${route}"} 10`);
    expect(metrics).toContain(`warpgate_relayer_parked{route="${route}"} 1`);
    expect(metrics).toContain(`warpgate_relayer_route_up{route="${L1}->${C_CHAIN}"} 0`);
    expect(metrics).toContain(`warpgate_relayer_retries_total{route="${route}"} 1`);
    expect(metrics).toMatch(/warpgate_relayer_key_low_balance\{chain="[^"]+",address="0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc"\} 1/);
  });

  it('relay mode serves the relayer and not the aggregation API; serve mode both', async () => {
    const relay = await start(fakeParts().parts, true);
    const serve = await start(fakeParts().parts, false);
    const aggregate = (url: string) => fetch(`${url}/v1/signatureAggregator/fuji/aggregateSignatures`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect((await aggregate(relay.url)).status).toBe(404);
    expect((await aggregate(serve.url)).status).toBe(400);
    for (const url of [relay.url, serve.url]) {
      const answer = await fetch(`${url}/relay`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ 'blockchain-id': C_CHAIN, 'message-id': `0x${'11'.repeat(32)}`, 'block-num': 1 }) });
      expect(answer.status).toBe(403);
      expect((await fetch(`${url}/health`)).status).toBe(200);
    }
  });

  it('close() stops the relayer (drain) and closes its store, once', async () => {
    const { parts, relayer, store } = fakeParts();
    const service = await startService(relayerConfig(), { logger: pino({ level: 'silent' }), relayer: parts });
    await service.close();
    await service.close();
    expect(relayer.stopped).toBe(1);
    expect(store.closed).toBe(1);
  });

  it('a relayer that fails to start fails the start, its store closed', async () => {
    const { parts, store } = fakeParts();
    const failing: RelayerParts = { ...parts, createRelayer: () => { throw new Error('engine refused'); } };
    await expect(startService(relayerConfig(), { logger: pino({ level: 'silent' }), relayer: failing })).rejects.toThrow('engine refused');
    expect(store.closed).toBe(1);
  });
});
