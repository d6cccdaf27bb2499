// GET /health and GET /ready on a small devnet of signer peers (--transport ws): ready flips to
// 503 when the node goes down or when the signers drop (their host processes killed), and back to
// 200 when the node answers again and when signers restart on the same ports (the pool redials
// them). Readiness over both transports: test/service/p2p-devnet.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadBackend } from '../../src/bls/index.js';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { KeyFileBackend, SignerPeer, StaticPolicy } from '../../src/signer/index.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { postJson, request, scrape, waitFor } from './helpers.js';

let devnet: Devnet;
const restarted: SignerPeer[] = [];

beforeAll(async () => {
  devnet = await startDevnet({ validators: 4, transport: 'ws', port: 0, logger: pino({ level: 'silent' }), configOverrides: { 'workers.threads': 1 } });
});

afterAll(async () => {
  await Promise.allSettled(restarted.map((s) => s.close()));
  await devnet?.close();
});

const ready = () => request(`${devnet.info.url}/ready`);

describe('health and readiness', () => {
  it('/health answers 200 and /ready 200 with the connected stake of the configured subnet', async () => {
    expect((await request(`${devnet.info.url}/health`)).status).toBe(200);
    const r = await ready();
    expect(r.status).toBe(200);
    expect(r.body.ready).toBe(true);
    expect(r.body.reasons).toEqual([]);
    expect(r.body.subnets).toHaveLength(1);
    expect(r.body.subnets[0].subnetId).toBe(devnet.info.subnetId);
    expect(BigInt(r.body.subnets[0].totalWeight)).toBe(devnet.genesis.totalWeight);
  });

  it('flips to 503 while the node is down, counts the P-Chain errors, and recovers', async () => {
    const before = await scrape(devnet.info.url);
    devnet.node.setFault('down');
    try {
      const r = await ready();
      expect(r.status).toBe(503);
      expect(r.body.ready).toBe(false);
      expect(r.body.reasons).toHaveLength(1);
      expect(r.body.reasons[0]).toMatch(/^node does not answer: /);
    } finally {
      devnet.node.setFault(null);
    }
    const m = await scrape(devnet.info.url);
    expect(m.sum('warpgate_pchain_call_errors_total', { method: 'platform.getHeight' })).toBeGreaterThan(
      before.sum('warpgate_pchain_call_errors_total', { method: 'platform.getHeight' }),
    );
    expect((await ready()).status).toBe(200);
  });

  it('flips to 503 when the signers drop and recovers when they restart on the same ports', async () => {
    const ports = devnet.config.peers.map((p) => Number(new URL(p.url).port));
    const fullStake = (await ready()).body.subnets[0].connectedPercent as number;
    // Killed for good (the devnet would otherwise restart them: test/devnet/supervision.test.ts).
    await Promise.all(devnet.signerSupervisors.map((_, i) => devnet.stopSignerHost(i)));
    const down = await waitFor('/ready to answer 503', async () => {
      const r = await ready();
      return r.status === 503 ? r : undefined;
    });
    expect(down.body.reasons).toEqual([`subnet ${devnet.info.subnetId}: connected stake 0% is below 67%`]);
    expect(down.body.subnets[0].connectedWeight).toBe('0');
    const dropped = await scrape(devnet.info.url);
    expect(dropped.value('warpgate_peers_connected', { transport: 'ws' })).toBe(0);
    expect(dropped.value('warpgate_connected_stake_percent', { subnet: devnet.info.subnetId })).toBe(0);
    // Aggregations fail clearly meanwhile.
    const failed = await postJson(`${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: devnet.exampleMessageHex('nobody home') });
    expect(failed.status).toBe(503);

    // The signers come back on the ports the service keeps redialing (one distinct key per port).
    const bls = loadBackend('blst');
    const policy = new StaticPolicy({ networkId: devnet.genesis.networkId, allowedSourceChains: [devnet.genesis.blockchainId] });
    const keys = [...new Map(devnet.genesis.validators.map((v) => [bytesToHex(v.secretKey), v.secretKey])).values()];
    expect(keys).toHaveLength(ports.length);
    for (const [i, port] of ports.entries()) {
      const secretKey = bls.secretKeyFromBytes(keys[i]!);
      const peer = new SignerPeer({ secretKey, bls, backend: new KeyFileBackend(secretKey, bls, policy), listen: { port, host: '127.0.0.1' } });
      restarted.push(peer);
      await peer.start();
    }
    const up = await waitFor(
      '/ready to answer 200 again',
      async () => {
        const r = await ready();
        return r.status === 200 ? r : undefined;
      },
      20_000,
      100,
    );
    expect(up.body.reasons).toEqual([]);
    // Ready needs only quorum; the remaining signers follow at their own redial times.
    const back = await waitFor(
      'every signer to be reconnected',
      async () => {
        const m = await scrape(devnet.info.url);
        return m.value('warpgate_peers_connected', { transport: 'ws' }) === ports.length ? m : undefined;
      },
      20_000,
      100,
    );
    expect(back.value('warpgate_connected_stake_percent', { subnet: devnet.info.subnetId })).toBe(fullStake);
    expect((await ready()).body.subnets[0].connectedPercent).toBe(fullStake);
    const signed = await postJson(`${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: devnet.exampleMessageHex('back again') });
    expect(signed.status).toBe(201);
  });
});
