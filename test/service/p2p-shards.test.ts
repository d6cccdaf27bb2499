// The service with its avalanchego connections in I/O shards (p2p.ioShards): the same discovery,
// aggregation, penalties and fault handling as on the main thread, against real TLS nodes, with
// the work of the connections done in worker threads.
import { afterEach, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/p2p/index.js';
import { scrape } from '../ops/helpers.js';
import { aggregate, closeWorld, messageHex, startWorld, until, verifiesIndependently, type World } from './p2p-world.js';

afterEach(closeWorld);

const connectedAll = (w: World): Promise<void> => until('every avalanchego validator to be connected', () => w.service.p2p!.connectedCount() === w.nodes.length);
const SHARDS = { 'p2p.ioShards': 2 };

describe('p2p.ioShards', () => {
  it('finds the validators through info.peers, connects them from two shards, and aggregates a message that verifies', async () => {
    const w = await startWorld({ seed: 'shards-info-peers', validators: 6, overrides: SHARDS });
    await connectedAll(w);
    expect(w.log.records.find((r) => r.msg === 'p2p transport running')).toMatchObject({ ioShards: 2 });
    // Connection log lines come from the shards, each naming its own.
    const connected = w.log.records.filter((r) => r.msg === 'p2p peer connected');
    expect(connected.map((r) => r.nodeId).sort()).toEqual(w.nodes.map((n) => n.nodeId).sort());
    for (const r of connected) expect(r.shard).toBe(shardOf(r.nodeId as string, 2));
    const { status, body } = await aggregate(w.service, messageHex(w, 'signed through shards'));
    expect(status).toBe(201);
    expect((await verifiesIndependently(w, body.signedMessage)).signers).toBeGreaterThan(0);
    expect(w.service.p2p!.stats()).toMatchObject({ state: 'running', targets: 6, connected: 6 });
    // /ready tells the operator how the transport runs.
    const ready = (await (await fetch(`${w.service.url}/ready`)).json()) as { peers: { p2p: unknown } };
    expect(ready.peers.p2p).toMatchObject({ state: 'running', connected: 6, ioShards: 2 });
  });

  it('learns addresses from a PeerList a shard reads: the main thread plans them and hands each to its shard', async () => {
    const w = await startWorld({ seed: 'shards-gossip', listed: (i) => i === 0, gossipFrom: 0, overrides: SHARDS });
    await connectedAll(w);
    const { status } = await aggregate(w.service, messageHex(w, 'found through gossip, sharded'));
    expect(status).toBe(201);
  });

  it('an invalid signature strikes the NodeID in the shard that holds it; at the threshold it is dropped', async () => {
    const w = await startWorld({ seed: 'shards-penalties', faults: { 3: 'invalid-signature' }, overrides: { ...SHARDS, 'p2p.penaltyThreshold': 1 } });
    await connectedAll(w);
    const bad = w.nodes[3]!.nodeId;
    const { status, body } = await aggregate(w.service, messageHex(w, 'one of them lies'), { quorumPercentage: 100 });
    expect(status).toBe(503);
    expect(body.message).toMatch(/invalid signatures 1,/);
    await until('the liar to be dropped', () => !w.service.p2p!.isConnected(bad));
    expect(w.log.records.find((r) => r.msg === 'p2p peer penalized, disconnecting it for a cooldown')).toMatchObject({ nodeId: bad, banned: true });
    expect(w.service.p2p!.connectedCount()).toBe(3);
  });

  it('garbage, silence and a dropped connection: the honest quorum answers without waiting out the silent one', async () => {
    const w = await startWorld({
      seed: 'shards-faults',
      validators: 8,
      faults: { 5: 'garbage', 6: 'silent', 7: 'disconnect' },
      overrides: { ...SHARDS, 'aggregation.deadlineMs': 60_000, 'aggregation.requestTimeoutMs': 60_000 },
    });
    await connectedAll(w);
    const { status, body } = await aggregate(w.service, messageHex(w, 'despite the faulty, sharded'));
    expect(status).toBe(201);
    await verifiesIndependently(w, body.signedMessage);
    expect(w.log.records.some((r) => r.msg === 'p2p peer penalized' && r.nodeId === w.nodes[5]!.nodeId)).toBe(true);
    await until('the silent request to be cancelled', async () => (await scrape(w.service.url)).sum('warpgate_peer_requests_total', { transport: 'p2p', outcome: 'cancelled' }) >= 1);
    expect((await scrape(w.service.url)).sum('warpgate_peer_requests_total', { outcome: 'timeout' })).toBe(0);
  });
});
