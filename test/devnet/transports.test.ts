// The devnet's transports end to end, with real processes: `--transport p2p` (every validator a
// simulated avalanchego node the service finds through the P-Chain node's info.peers) signs
// messages that verify independently, P-Chain L1 messages included (the nodes' P-Chain verifier
// reads the devnet's state); `mixed` counts connected stake over both transports in /ready and
// the metrics, and tells the truth as each transport's processes go away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import { InfoClient } from '../../src/node/info.js';
import { PChainClient } from '../../src/node/pchain.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { parseSignedMessage } from '../../src/warp/signed-message.js';
import { request, scrape, waitFor } from '../ops/helpers.js';

const noble = createNobleBackend();
let p2p: Devnet;
let mixed: Devnet;

beforeAll(async () => {
  [p2p, mixed] = await Promise.all([
    startDevnet({ validators: 5, byzantine: 1, transport: 'p2p', seed: 'transports-p2p', port: 0, logger: pino({ level: 'silent' }), configOverrides: { 'workers.threads': 1 } }),
    startDevnet({ validators: 6, transport: 'mixed', seed: 'transports-mixed', port: 0, logger: pino({ level: 'silent' }), configOverrides: { 'workers.threads': 1 } }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.allSettled([p2p?.close(), mixed?.close()]);
});

async function verifies(devnet: Devnet, signedHex: string, subnetId: Uint8Array = devnet.genesis.subnetId): Promise<void> {
  const entries = await new PChainClient({ nodeBaseUrl: devnet.node.url }).getCurrentValidators(subnetId);
  const v = verifySignedMessage(hexToBytes(signedHex), entries, 67, devnet.info.networkId, noble);
  expect(v.valid, v.valid ? '' : v.reason).toBe(true);
}

describe('--transport p2p', () => {
  it('runs every validator as an avalanchego node with its own NodeID, listed by the P-Chain node’s info.peers', async () => {
    expect(p2p.info).toMatchObject({ transport: 'p2p', signers: 0, validators: 5 });
    expect(p2p.info.p2p.map((n) => n.nodeId).sort()).toEqual(p2p.genesis.validators.map((v) => v.nodeId).sort());
    const listed = await new InfoClient({ nodeBaseUrl: p2p.node.url }).peers();
    expect(listed.peers.map((p) => [p.nodeId, p.publicAddress])).toEqual(p2p.info.p2p.map((n) => [n.nodeId, { host: n.host, port: n.port }]));
    expect(p2p.service.p2p!.connectedCount()).toBe(5);
    expect(p2p.service.peers.connectedKeys()).toEqual([]);
  });

  it('signs a message of the L1’s chain, verifiable against the P-Chain’s validator set', async () => {
    const res = await fetch(`${p2p.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: p2p.exampleMessageHex('over avalanchego’s protocol') }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(201);
    await verifies(p2p, ((await res.json()) as { signedMessage: string }).signedMessage);
  });

  it('a byzantine avalanchego validator’s invalid signature is found and counted, never signed in', async () => {
    expect(p2p.genesis.validators.filter((v) => v.fault).map((v) => v.fault)).toEqual(['invalid-signature']);
    // Quorum 100 cannot be met (the keyless weight never signs), so every answer is checked first.
    const res = await fetch(`${p2p.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: p2p.exampleMessageHex('with a liar among them'), quorumPercentage: 100 }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toMatch(/answered 4, refused 0, timed out 0, invalid signatures 1,/);
  });

  it('signs the L1 conversion (a P-Chain message the nodes’ P-Chain verifier checks against the devnet’s state)', async () => {
    const res = await fetch(`${p2p.info.url}/v1/signatureAggregator/fuji/aggregateSignatures/${p2p.info.l1ConversionTxId}`, { signal: AbortSignal.timeout(20_000) });
    expect(res.status).toBe(201);
    const { signedMessage } = (await res.json()) as { signedMessage: string };
    expect(bytesToHex(parseSignedMessage(hexToBytes(signedMessage)).unsigned.sourceChainId)).toBe('00'.repeat(32));
    await verifies(p2p, signedMessage);
  });
});

describe('--transport mixed: readiness and metrics over both transports', () => {
  /** Weight of the canonical validators reachable over p2p (one NodeID of theirs is an avalanchego node). */
  function p2pWeight(d: Devnet): bigint {
    const byKey = new Map<string, { weight: bigint; p2p: boolean }>();
    for (const v of d.genesis.validators) {
      const k = bytesToHex(v.publicKey);
      const e = byKey.get(k) ?? { weight: 0n, p2p: false };
      byKey.set(k, { weight: e.weight + v.weight, p2p: e.p2p || v.staking !== undefined });
    }
    return [...byKey.values()].filter((e) => e.p2p).reduce((a, e) => a + e.weight, 0n);
  }

  it('counts stake connected either way; with the signers gone the avalanchego nodes’ stake remains; with both gone 503', async () => {
    const ready = await request(`${mixed.info.url}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.peers.connected).toEqual({ ws: mixed.info.signers, p2p: mixed.info.p2p.length });
    expect(mixed.info.signers).toBeGreaterThan(0);
    // The status page's model names the transport each validator is connected by.
    const status = (await request(`${mixed.info.url}/status.json`)).body;
    expect(status.peers).toEqual({ connected: mixed.info.signers + mixed.info.p2p.length, byTransport: { websocket: mixed.info.signers, p2p: mixed.info.p2p.length }, silent: [] });
    const shown = status.subnets[0].validators as { nodeIds: string[]; transport: string }[];
    const avalanchego = new Set(mixed.info.p2p.map((n) => n.nodeId));
    for (const v of shown) {
      // A validator with a signer peer is reached over it, even when it runs an avalanchego node too.
      const onlyP2P = v.nodeIds.every((id) => avalanchego.has(id));
      expect(v.transport, v.nodeIds.join()).toBe(onlyP2P ? 'p2p' : 'websocket');
    }
    expect(shown.some((v) => v.transport === 'p2p')).toBe(true);
    const m = await scrape(mixed.info.url);
    expect(m.value('warpgate_peers_connected', { transport: 'ws' })).toBe(mixed.info.signers);
    expect(m.value('warpgate_peers_connected', { transport: 'p2p' })).toBe(mixed.info.p2p.length);

    await Promise.all(mixed.signerSupervisors.map((_, i) => mixed.stopSignerHost(i)));
    const p2pOnly = await waitFor('the signers to be gone', async () => {
      const r = await request(`${mixed.info.url}/ready`);
      return r.body.peers.connected.ws === 0 ? r : undefined;
    });
    expect(BigInt(p2pOnly.body.subnets[0].connectedWeight)).toBe(p2pWeight(mixed));
    const pct = Number((p2pWeight(mixed) * 10_000n) / mixed.genesis.totalWeight) / 100;
    expect((await scrape(mixed.info.url)).value('warpgate_connected_stake_percent', { subnet: mixed.info.subnetId })).toBe(pct);

    await Promise.all(mixed.nodeSupervisors.map((_, i) => mixed.stopNodeHost(i)));
    const down = await waitFor('/ready to answer 503', async () => {
      const r = await request(`${mixed.info.url}/ready`);
      return r.status === 503 ? r : undefined;
    });
    expect(down.body.reasons).toEqual([`subnet ${mixed.info.subnetId}: connected stake 0% is below 67%`]);
    expect(down.body.peers.connected).toEqual({ ws: 0, p2p: 0 });
    const gone = await scrape(mixed.info.url);
    expect(gone.value('warpgate_peers_connected', { transport: 'p2p' })).toBe(0);
  });
});
