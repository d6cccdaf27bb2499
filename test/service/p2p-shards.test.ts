// The service with its avalanchego connections in I/O shards (p2p.ioShards): discovery through
// info.peers and gossip, aggregation and /ready, against real TLS nodes, with the work of the
// connections done in worker threads. Penalties and faulty validators with shards: the
// p2p.ioShards cases of p2p-routing.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/p2p/index.js';
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
});
