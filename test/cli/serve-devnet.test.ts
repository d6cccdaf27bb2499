// `npm start` (`warpgate serve` without a config file) through the real binary: the embedded
// devnet mixes both transports, and one aggregation is signed over both, signer peers and
// simulated avalanchego nodes alike.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, postJson, request, scrape, startWarpgate, waitFor, type WarpgateProcess } from '../ops/helpers.js';

let proc: WarpgateProcess | undefined;
afterAll(async () => {
  await proc?.kill();
});

describe('warpgate serve without a config', () => {
  it('serves a mixed devnet and aggregates over both transports', async () => {
    proc = startWarpgate(['serve', '--port', '0'], cleanEnv());
    const line = await proc.waitForLine((l) => l.includes('"warpgate listening"'), 60_000);
    const url = (JSON.parse(line) as { url: string }).url;
    // The devnet describes itself on stderr once every validator is connected, an example message included.
    await waitFor('the devnet to describe itself', () => (/"message":"([0-9a-f]+)"/.test(proc!.stderr()) ? true : undefined), 60_000, 100);
    const message = /"message":"([0-9a-f]+)"/.exec(proc.stderr())![1]!;
    expect(proc.stderr()).toMatch(/\d+ validators \(\d+ signer peers, \d+ avalanchego nodes\)/);
    const ready = await request(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.peers.connected.ws).toBeGreaterThan(0);
    expect(ready.body.peers.connected.p2p).toBeGreaterThan(0);

    const res = await postJson(`${url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message });
    expect(res.status).toBe(201);
    // Every validator is asked at once (fanOutExtraPercent 100): signatures came both ways.
    const signedBy = async (transport: string): Promise<number> => (await scrape(url)).sum('warpgate_peer_requests_total', { transport, outcome: 'signature' });
    await waitFor('signatures over both transports', async () => ((await signedBy('ws')) > 0 && (await signedBy('p2p')) > 0 ? true : undefined), 15_000, 50);
  }, 120_000);
});
