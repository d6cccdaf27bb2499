// GET /metrics on a small devnet: every metric the operations issue lists exists, moves when its
// event happens, and the peers-connected and connected-stake gauges are right.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { postJson, scrape } from './helpers.js';

let devnet: Devnet;
let aggregateUrl: string;

beforeAll(async () => {
  devnet = await startDevnet({ validators: 4, port: 0, logger: pino({ level: 'silent' }), configOverrides: { 'workers.threads': 1 } });
  aggregateUrl = `${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`;
});

afterAll(async () => {
  await devnet?.close();
});

/** Connected weight over total weight in percent (two decimals), computed from the genesis. */
function expectedStakePercent(connectedWeight: bigint): number {
  return Number((connectedWeight * 10_000n) / devnet.genesis.totalWeight) / 100;
}

describe('metrics', () => {
  it('peers connected and connected stake per subnet are right', async () => {
    const m = await scrape(devnet.info.url);
    // The default devnet mixes both transports: signer peers and simulated avalanchego nodes.
    expect(m.value('warpgate_peers_connected', { transport: 'ws' })).toBe(devnet.info.signers);
    expect(m.value('warpgate_peers_connected', { transport: 'p2p' })).toBe(devnet.info.p2p.length);
    expect(devnet.info.signers).toBeGreaterThan(0);
    expect(devnet.info.p2p.length).toBeGreaterThan(0);
    // Every keyed validator is connected one way or the other; only the keyless inactive weight is missing.
    const keyed = devnet.genesis.validators.reduce((a, v) => a + v.weight, 0n);
    expect(keyed + devnet.genesis.keylessWeight).toBe(devnet.genesis.totalWeight);
    expect(m.value('warpgate_connected_stake_percent', { subnet: devnet.info.subnetId })).toBe(expectedStakePercent(keyed));
  });

  it('an aggregation moves the latency histogram, responses, cache, P-Chain and weight metrics', async () => {
    const before = await scrape(devnet.info.url);
    const message = devnet.exampleMessageHex('metrics move');
    const first = await postJson(aggregateUrl, { message });
    expect(first.status).toBe(201);
    const second = await postJson(aggregateUrl, { message });
    expect(second.status).toBe(201);
    const m = await scrape(devnet.info.url);

    const delta = (name: string, labels: Record<string, string> = {}): number => m.sum(name, labels) - before.sum(name, labels);
    expect(delta('warpgate_aggregation_seconds_count', { outcome: 'success' })).toBe(2);
    expect(delta('warpgate_aggregation_seconds_bucket', { outcome: 'success', le: '+Inf' })).toBe(2);
    expect(delta('warpgate_aggregation_seconds_sum', { outcome: 'success' })).toBeGreaterThan(0);
    expect(delta('warpgate_signature_responses_total', { result: 'valid' })).toBeGreaterThanOrEqual(1);
    // The first request found nothing cached; the second found the first one's signatures.
    expect(delta('warpgate_signature_cache_total', { result: 'miss' })).toBe(1);
    expect(delta('warpgate_signature_cache_total', { result: 'hit' })).toBe(1);
    expect(m.sum('warpgate_pchain_call_seconds_count', { method: 'platform.getCurrentValidators' })).toBeGreaterThanOrEqual(1);
    expect(m.sum('warpgate_pchain_call_seconds_sum')).toBeGreaterThan(0);
    expect(delta('warpgate_signed_weight_ratio_count')).toBe(2);
    const ratio = delta('warpgate_signed_weight_ratio_sum') / 2;
    expect(ratio).toBeGreaterThanOrEqual(0.67);
    expect(ratio).toBeLessThanOrEqual(1);
    expect(m.value('warpgate_last_total_weight')).toBe(Number(devnet.genesis.totalWeight));
    expect(m.value('warpgate_last_signed_weight')).toBeGreaterThanOrEqual(0.67 * Number(devnet.genesis.totalWeight));
    expect(delta('warpgate_http_requests_total', { route: '/v1/signatureAggregator/:network/aggregateSignatures', status: '201' })).toBe(2);
    expect(m.value('warpgate_aggregations_in_flight')).toBe(0);
    // No destination: both signed at the proposed height; each message's signers counted.
    expect(delta('warpgate_pchain_height_source_total', { source: 'proposed' })).toBe(2);
    expect(delta('warpgate_pchain_call_seconds_count', { method: 'platform.getProposedHeight' })).toBeGreaterThanOrEqual(1);
    expect(delta('warpgate_message_signers_count')).toBe(2);
    expect(delta('warpgate_message_signers_sum')).toBeGreaterThanOrEqual(2);
  });

  it('refusals and a failed aggregation are counted by result and outcome', async () => {
    // A chain the devnet validators do not sign for: every signer refuses, quorum is not reached
    // (an avalanchego node drops a request for a chain it does not run: a timeout, not a refusal).
    const foreignChain = hexToBytes('ab'.repeat(32));
    const payload = encodeAddressedCall(devnet.genesis.managerAddress, new TextEncoder().encode('not ours'));
    const message = bytesToHex(newUnsignedMessage(devnet.genesis.networkId, foreignChain, payload).bytes);
    const before = await scrape(devnet.info.url);
    const res = await postJson(aggregateUrl, { message, signingSubnetId: devnet.info.subnetId });
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/quorum not reached/);
    const m = await scrape(devnet.info.url);
    expect(m.sum('warpgate_signature_responses_total', { result: 'refused' }) - before.sum('warpgate_signature_responses_total', { result: 'refused' })).toBe(
      devnet.info.signers,
    );
    expect(m.sum('warpgate_aggregation_seconds_count', { outcome: 'quorum_not_reached' }) - before.sum('warpgate_aggregation_seconds_count', { outcome: 'quorum_not_reached' })).toBe(1);
  });

  it('forwarded requests count by route and status, with upstream latency', async () => {
    const before = await scrape(devnet.info.url);
    const res = await postJson(`${devnet.info.url}/ext/bc/P`, { jsonrpc: '2.0', id: 1, method: 'platform.getHeight', params: {} });
    expect(res.status).toBe(200);
    expect(res.body.result.height).toBeDefined();
    const m = await scrape(devnet.info.url);
    expect(m.sum('warpgate_proxy_requests_total', { status: '200' }) - before.sum('warpgate_proxy_requests_total', { status: '200' })).toBe(1);
    expect(m.sum('warpgate_proxy_upstream_seconds_count', { upstream: 'node' }) - before.sum('warpgate_proxy_upstream_seconds_count', { upstream: 'node' })).toBe(1);
  });

  it('worker-pool queue depth shows tasks waiting for a thread', async () => {
    const { service } = devnet;
    const signed = await postJson(aggregateUrl, { message: devnet.exampleMessageHex('queue depth') });
    const signature = hexToBytes(signed.body.signedMessage).slice(-96);
    // One worker thread and a burst of tasks: all but one wait in the queue.
    const tasks = Array.from({ length: 40 }, () => service.pool.aggregate([signature, signature]));
    const depth = (await service.metrics.workerQueueDepth.get()).values[0]!.value;
    await Promise.all(tasks);
    expect(depth).toBeGreaterThan(10);
    expect((await service.metrics.workerQueueDepth.get()).values[0]!.value).toBe(0);
    expect((await scrape(devnet.info.url)).value('warpgate_worker_queue_depth')).toBe(0);
  });

  it('BLS tasks are counted by kind with the jobs each held: an aggregation adds its fold-and-check', async () => {
    const before = await scrape(devnet.info.url);
    const signed = await postJson(aggregateUrl, { message: devnet.exampleMessageHex('bls tasks') });
    expect(signed.status).toBe(201);
    const m = await scrape(devnet.info.url);
    // Every final check is a fold-and-check (a finalize is one with nothing new to fold).
    const tasks = (s: typeof m) => s.sum('warpgate_bls_task_jobs_count', { kind: 'foldAndCheck' });
    expect(tasks(m) - tasks(before)).toBeGreaterThanOrEqual(1);
    // Jobs are never fewer than tasks: a task holds one job or more.
    expect(m.sum('warpgate_bls_task_jobs_sum', {})).toBeGreaterThanOrEqual(m.sum('warpgate_bls_task_jobs_count', {}));
  });

  it('event-loop lag is exported and shows a blocked loop', async () => {
    await scrape(devnet.info.url); // resets the lag histogram
    // After a reset the monitor needs one tick of its 10 ms timer before it measures delays again.
    await new Promise((r) => setTimeout(r, 50));
    const until = Date.now() + 150;
    while (Date.now() < until) {
      // block the event loop the service runs on
    }
    await new Promise((r) => setTimeout(r, 30));
    const m = await scrape(devnet.info.url);
    expect(m.value('warpgate_nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.1);
    expect(m.value('warpgate_nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('every listed metric is registered with help text', async () => {
    const m = await scrape(devnet.info.url);
    for (const name of [
      'warpgate_aggregation_seconds',
      'warpgate_signed_weight_ratio',
      'warpgate_peers_connected',
      'warpgate_peer_connections_refused_total',
      'warpgate_connected_stake_percent',
      'warpgate_signature_responses_total',
      'warpgate_signature_cache_total',
      'warpgate_pchain_call_seconds',
      'warpgate_pchain_call_errors_total',
      'warpgate_proxy_requests_total',
      'warpgate_proxy_upstream_seconds',
      'warpgate_worker_queue_depth',
      'warpgate_bls_task_jobs',
      'warpgate_aggregations_in_flight',
      'warpgate_nodejs_eventloop_lag_seconds',
    ]) {
      expect(m.help.has(name), name).toBe(true);
    }
  });
});
