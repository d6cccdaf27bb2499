// The service finds avalanchego validators from each source on its own, connects to them over real
// TLS, and aggregates their signatures into a message that verifies independently: info.peers of
// upstreams.node (the publicIP each peer signed), p2p.peers in the config, and PeerList gossip.
import { afterEach, describe, expect, it } from 'vitest';
import { cb58Encode } from '../../src/warp/cb58.js';
import { aggregate, closeWorld, messageHex, startWorld, until, verifiesIndependently, type World } from './p2p-world.js';

afterEach(closeWorld);

const connectedAll = (w: World): Promise<void> => until('every avalanchego validator to be connected', () => w.service.p2p!.connectedCount() === w.nodes.length);

describe('discovery', () => {
  it('from info.peers of the node alone: dials each validator at its publicIP and aggregates over p2p; the signed message verifies', async () => {
    const w = await startWorld({ seed: 'discovery-info-peers' });
    await connectedAll(w);
    // Asked for the validators of readiness.subnets, by NodeID.
    const call = w.pchain.calls.find((c) => c.method === 'info.peers');
    expect((call!.params as { nodeIDs: string[] }).nodeIDs.sort()).toEqual(w.nodes.map((n) => n.nodeId).sort());
    const { status, body } = await aggregate(w.service, messageHex(w, 'found through info.peers'));
    expect(status).toBe(201);
    // Signed over p2p alone: the service has no signer peer.
    expect((await verifiesIndependently(w, body.signedMessage)).signers).toBeGreaterThan(0);
    expect(w.service.peers.connectedKeys()).toEqual([]);
  });

  it('from p2p.peers alone, with a node whose info.peers lists nobody', async () => {
    const w = await startWorld({ seed: 'discovery-config', listed: () => false, configured: [0, 1, 2, 3] });
    await connectedAll(w);
    const { status, body } = await aggregate(w.service, messageHex(w, 'found through the config'));
    expect(status).toBe(201);
    expect((await verifiesIndependently(w, body.signedMessage)).signers).toBeGreaterThan(0);
  });

  it('from PeerList gossip: info.peers names one validator, and its PeerList the others', async () => {
    const w = await startWorld({ seed: 'discovery-gossip', listed: (i) => i === 0, gossipFrom: 0 });
    await connectedAll(w);
    expect(w.log.records.filter((r) => r.msg === 'p2p peer connected').map((r) => r.nodeId)[0]).toBe(w.nodes[0]!.nodeId);
    const { status } = await aggregate(w.service, messageHex(w, 'found through gossip'));
    expect(status).toBe(201);
  });

  it('with no readiness.subnets and no p2p.peers, the first aggregation waits for the dials its set read started, and succeeds', async () => {
    // Nothing is dialled before the first request: reading the set is what starts discovery.
    const w = await startWorld({ seed: 'discovery-first-request', overrides: { 'readiness.subnets': [] } });
    expect(w.service.p2p!.connectedCount()).toBe(0);
    const first = await aggregate(w.service, messageHex(w, 'the first request after start'));
    expect(first.status).toBe(201);
    expect((await verifiesIndependently(w, first.body.signedMessage)).signers).toBeGreaterThan(0);
  });

  it('a validator that cannot be found is not waited for: counted as not connected, long before the deadline', async () => {
    // info.peers lists nobody and nothing is configured: once the read ends, nobody is being dialled.
    const w = await startWorld({ seed: 'discovery-nobody-found', listed: () => false, overrides: { 'readiness.subnets': [] } });
    const startedAt = Date.now();
    const first = await aggregate(w.service, messageHex(w, 'nobody can be found'));
    expect(first.status).toBe(503);
    expect(JSON.stringify(first.body)).toMatch(/not connected/i);
    expect(Date.now() - startedAt).toBeLessThan(20_000);
  });

  it('connects the validators of a subnet an aggregation reads, heaviest first, at most p2p.maxPeers', async () => {
    // No readiness.subnets: nothing is known until an aggregation reads the L1's set.
    const w = await startWorld({ seed: 'discovery-on-demand', overrides: { 'readiness.subnets': [], 'p2p.maxPeers': 2 } });
    await aggregate(w.service, messageHex(w, 'nobody connected yet'));
    await until('two validators to be connected', () => w.service.p2p!.connectedCount() === 2);
    const connected = w.log.records.filter((r) => r.msg === 'p2p peer connected').map((r) => r.nodeId as string);
    const byWeight = [...w.genesis.validators].sort((a, b) => (a.weight > b.weight ? -1 : a.weight < b.weight ? 1 : 0));
    // Validators 1 and 2 are one canonical validator (their weights summed): both NodeIDs rank with it.
    const merged = new Set([w.genesis.validators[1]!.nodeId, w.genesis.validators[2]!.nodeId]);
    const shareOf = (v: (typeof byWeight)[number]): bigint => (merged.has(v.nodeId) ? w.genesis.validators[1]!.weight + w.genesis.validators[2]!.weight : v.weight);
    const expected = [...byWeight].sort((a, b) => (shareOf(a) > shareOf(b) ? -1 : shareOf(a) < shareOf(b) ? 1 : a.nodeId < b.nodeId ? -1 : 1)).slice(0, 2);
    expect(new Set(connected)).toEqual(new Set(expected.map((v) => v.nodeId)));
  });
});

describe('discovery without info.peers (p2p.infoPeers off)', () => {
  it('never reads info.peers; every validator of the subnet is found through gossip from one configured peer, tracked in the Handshake', async () => {
    const w = await startWorld({ seed: 'discovery-no-info-peers', configured: [0], gossipFrom: 0, overrides: { 'p2p.infoPeers': false } });
    await connectedAll(w);
    expect(w.pchain.calls.filter((c) => c.method === 'info.peers')).toEqual([]);
    // The readiness subnet is claimed as tracked, so a real node answers GetPeerList with its validators (network.go Peers).
    const tracked = w.nodes[0]!.handshakeOf(w.service.p2p!.nodeId)!.trackedSubnets.map((s) => cb58Encode(s));
    expect(tracked).toContain(cb58Encode(w.genesis.subnetId));
    const { status } = await aggregate(w.service, messageHex(w, 'found through gossip alone'));
    expect(status).toBe(201);
  });
});
