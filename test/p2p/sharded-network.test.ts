// The p2p network spread over I/O shards (worker threads), against simulated avalanchego nodes over
// real TLS on 127.0.0.1: the same answers, refusals and failures as the one-thread network, the
// partition, batching across the thread boundary, penalties, gossip, a shard that dies, close.
import { afterEach, describe, expect, it } from 'vitest';
import { EVM_VERIFIER_ERROR, P2PRequestError, ShardedP2PNetwork, shardOf, type P2PAnswer, type ShardedP2PNetworkOptions } from '../../src/p2p/index.js';
import type { ToShard } from '../../src/p2p/shard-messages.js';
import type { SimulatedAvalancheNode } from '../../src/devnet/avalanchego-node/node.js';
import { addressedCallMessage, bls, closeAll, EVM_CHAIN, FAST_LIMITS, hashMessage, NETWORK_ID, nextDialFailure, once, startNode, targetOf, verifies, waitFor } from './helpers.js';
import { ephemeralStakingIdentity } from '../../src/p2p/index.js';

const opened: ShardedP2PNetwork[] = [];
afterEach(async () => {
  for (const n of opened.splice(0)) await n.close();
  await closeAll();
});

async function startSharded(opts: Partial<ShardedP2PNetworkOptions> = {}): Promise<ShardedP2PNetwork> {
  const net = new ShardedP2PNetwork({ shards: 2, networkId: NETWORK_ID, identity: ephemeralStakingIdentity(), bls, requestTimeoutMs: 10_000, connectTimeoutMs: 5_000, ...opts, limits: { ...FAST_LIMITS, ...opts.limits } });
  opened.push(net);
  await net.start();
  return net;
}

/** Simulated nodes until both of two shards own at least one (NodeIDs are random). */
async function nodesOnBothShards(min: number): Promise<SimulatedAvalancheNode[]> {
  const nodes: SimulatedAvalancheNode[] = [];
  while (nodes.length < min || new Set(nodes.map((n) => shardOf(n.nodeId, 2))).size < 2) nodes.push(await startNode());
  return nodes;
}

const request = (i: number, chainId = EVM_CHAIN) => ({ chainId, message: hashMessage(i).bytes, justification: new Uint8Array() });

function askOnce(net: ShardedP2PNetwork, nodeId: string, req: { chainId: Uint8Array; message: Uint8Array; justification: Uint8Array }, timeoutMs = 10_000): Promise<{ err?: Error; answer?: P2PAnswer }> {
  return new Promise((resolve) => net.ask(nodeId, req, timeoutMs, (err, answer) => resolve({ err, answer })));
}

/** The messages the main thread posts to shard `i` (white box: the batching). */
function tapShard(net: ShardedP2PNetwork, i: number): ToShard[] {
  const seen: ToShard[] = [];
  const shard = (net as unknown as { shards: { worker: { postMessage(m: ToShard): void } }[] }).shards[i]!;
  const post = shard.worker.postMessage.bind(shard.worker);
  shard.worker.postMessage = (m: ToShard) => {
    seen.push(m);
    post(m);
  };
  return seen;
}

function workerOf(net: ShardedP2PNetwork, i: number): { terminate(): Promise<number> } {
  return (net as unknown as { shards: { worker: { terminate(): Promise<number> } }[] }).shards[i]!.worker;
}

describe('ShardedP2PNetwork', () => {
  it('connects every validator through the shard its NodeID hashes to and gets signatures that verify', async () => {
    const nodes = await nodesOnBothShards(4);
    const net = await startSharded();
    expect(net.isConnected(nodes[0]!.nodeId)).toBe(false);
    net.setTargets(nodes.map(targetOf));
    await waitFor(() => net.stats().connected === nodes.length, 'every node connected');
    expect(net.stats()).toMatchObject({ targets: nodes.length, connected: nodes.length, outstanding: 0 });
    expect(net.connectedNodeIds().sort()).toEqual(nodes.map((n) => n.nodeId).sort());
    for (const [i, node] of nodes.entries()) {
      const msg = hashMessage(i);
      const { err, answer } = await askOnce(net, node.nodeId, request(i));
      expect(err).toBeUndefined();
      expect(answer?.kind === 'signature' && verifies(node.blsPublicKey, msg.bytes, answer.signature)).toBe(true);
    }
    // The promise form too.
    expect((await net.request(nodes[0]!.nodeId, request(9))).kind).toBe('signature');
  });

  it('passes refusals and request failures through with the one-thread vocabulary; not connected fails at once', async () => {
    const refusing = await startNode();
    const net = await startSharded();
    net.setTargets([targetOf(refusing)]);
    await waitFor(() => net.isConnected(refusing.nodeId), 'connected');
    // A ValidatorUptime message from another chain: the EVM verifier refuses it.
    const foreign = { chainId: EVM_CHAIN, message: addressedCallMessage(new Uint8Array(46), { chain: new Uint8Array(32).fill(9) }).bytes, justification: new Uint8Array() };
    const refused = await askOnce(net, refusing.nodeId, foreign);
    expect(refused.answer).toMatchObject({ kind: 'refused', code: EVM_VERIFIER_ERROR.verify });
    // A chain the node does not run: it drops the request, the shard times it out.
    const timedOut = await net.request(refusing.nodeId, request(2, new Uint8Array(32).fill(3)), { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(P2PRequestError);
    expect((timedOut as P2PRequestError).reason).toBe('timeout');
    expect((timedOut as Error).message).toContain(refusing.nodeId);
    // The ask it left in the shard is cancelled there: nothing outstanding.
    expect(net.stats().outstanding).toBe(0);
    // The callback form's deadline is the shard connection's sweep (as on one thread): it ends as a timeout too.
    const swept = await askOnce(net, refusing.nodeId, request(3, new Uint8Array(32).fill(3)), 50);
    expect((swept.err as P2PRequestError).reason).toBe('timeout');
    // Named once, as the one-thread network names it.
    expect(swept.err!.message).toBe(`${refusing.nodeId}: no answer before the deadline`);
    let returned = false;
    const notConnected = new Promise<Error | undefined>((resolve) => {
      net.ask('NodeID-111111111111111111116DBWJs', request(3), 1_000, (err) => resolve(returned ? err : new Error('called before ask returned')));
      returned = true;
    });
    expect(((await notConnected) as P2PRequestError).reason).toBe('not-connected');
  });

  it('sends the asks of one turn to a shard as one message, the shared request body once; a cancelled ask is never answered, and never sent if cancelled in time', async () => {
    const node = await startNode();
    const net = await startSharded({ shards: 1 });
    net.setTargets([targetOf(node)]);
    await waitFor(() => net.isConnected(node.nodeId), 'connected');
    const seen = tapShard(net, 0);
    const req = request(1);
    const answers = Promise.all(Array.from({ length: 20 }, () => askOnce(net, node.nodeId, req)));
    const heard: unknown[] = [];
    net.ask(node.nodeId, request(2), 10_000, (err, a) => heard.push(err ?? a)).cancel('cancelled');
    expect((await answers).every((r) => r.answer?.kind === 'signature')).toBe(true);
    const asks = seen.filter((m) => m.type === 'asks');
    expect(asks).toHaveLength(1);
    // Cancelled in the turn it was made: left out of the message, so the node was asked 20 times.
    const first = asks[0] as ToShard & { type: 'asks' };
    expect(first.ids).toHaveLength(20);
    // One body for the twenty.
    expect(new Set(first.requestOf).size).toBe(1);
    expect(seen.filter((m) => m.type === 'cancel')).toEqual([]);
    expect(node.stats().answered).toBe(20);
    // Cancelled after it went (to a chain the node drops, so it is still outstanding): the shard is told.
    const late = net.ask(node.nodeId, request(3, new Uint8Array(32).fill(3)), 10_000, (err, a) => heard.push(err ?? a));
    await waitFor(() => seen.filter((m) => m.type === 'asks').length === 2, 'the second ask to go');
    late.cancel('cancelled');
    await waitFor(() => seen.some((m) => m.type === 'cancel'), 'the cancel to go');
    expect((await askOnce(net, node.nodeId, request(4))).answer?.kind).toBe('signature');
    expect(heard).toEqual([]);
    expect(net.stats().outstanding).toBe(0);
    expect(net.isConnected(node.nodeId)).toBe(true);
  });

  it('penalize reaches the shard holding the connection: at the threshold the validator is dropped', async () => {
    const nodes = await nodesOnBothShards(2);
    const net = await startSharded({ penalties: { threshold: 1, windowMs: 60_000, cooldownMs: 60_000, maxTrackedKeys: 100 } });
    net.setTargets(nodes.map(targetOf));
    await waitFor(() => net.stats().connected === nodes.length, 'connected');
    const dropped = once<[string]>(net, 'disconnected');
    net.penalize(nodes[0]!.nodeId, 'an invalid signature');
    expect((await dropped)[0]).toBe(nodes[0]!.nodeId);
    expect(net.isConnected(nodes[0]!.nodeId)).toBe(false);
    expect(nodes.slice(1).every((n) => net.isConnected(n.nodeId))).toBe(true);
  });

  it('a stale address one shard dials, held now by a validator of another shard: counted across the shards, no strike, no ban', async () => {
    const nodes = await nodesOnBothShards(2);
    const holder = nodes[0]!;
    const owner = shardOf(holder.nodeId, 2);
    // A validator of the other shard whose address (stale) now answers with the holder's certificate.
    let expected = ephemeralStakingIdentity().nodeId;
    while (shardOf(expected, 2) === owner) expected = ephemeralStakingIdentity().nodeId;
    const net = await startSharded({ penalties: { threshold: 1, windowMs: 60_000, cooldownMs: 60_000, maxTrackedKeys: 100 } });
    net.setTargets([targetOf(holder)]);
    await waitFor(() => net.isConnected(holder.nodeId), 'the holder connected as itself');
    let disconnected = false;
    net.on('disconnected', () => (disconnected = true));
    const dropped = once<[string, string]>(net, 'dropped');
    net.setTargets([targetOf(holder), { nodeId: expected, ...holder.address }]);
    expect(await dropped).toEqual([holder.nodeId, 'stale-address']);
    expect(disconnected).toBe(false);
    expect(net.isConnected(holder.nodeId)).toBe(true);
    expect(net.bansOf(owner)).toEqual([]);
  });

  it('a ban outlives the shard that made it: started again, the shard does not dial the banned validator', async () => {
    const nodes: SimulatedAvalancheNode[] = [];
    while (nodes.filter((n) => shardOf(n.nodeId, 2) === 0).length < 2) nodes.push(await startNode());
    const [banned, mate] = nodes.filter((n) => shardOf(n.nodeId, 2) === 0);
    const net = await startSharded({ restartMinMs: 50, penalties: { threshold: 1, windowMs: 60_000, cooldownMs: 60_000, maxTrackedKeys: 100 } });
    net.setTargets(nodes.map(targetOf));
    await waitFor(() => net.stats().connected === nodes.length, 'connected');
    net.penalize(banned!.nodeId, 'an invalid signature');
    await waitFor(() => !net.isConnected(banned!.nodeId) && net.bansOf(0).length === 1, 'the ban');
    await workerOf(net, 0).terminate();
    await waitFor(() => net.isConnected(mate!.nodeId), 'the restarted shard to reconnect the other', 30_000);
    // Dialled together with its shard-mate, were its ban forgotten.
    await new Promise((r) => setTimeout(r, 300));
    expect(net.isConnected(banned!.nodeId)).toBe(false);
    expect(net.bansOf(0)).toEqual([{ nodeId: banned!.nodeId, forMs: expect.any(Number) }]);
  });

  it('checks a validator’s Handshake against its registered BLS key, sent to the shard with the target', async () => {
    const node = await startNode();
    const other = bls.publicKeyOf(bls.generateSecretKey());
    const net = await startSharded({ validatorBlsKey: (id) => (id === node.nodeId ? other : undefined) });
    const [nodeId, err] = await nextDialFailure(net, () => net.setTargets([targetOf(node)]));
    expect(nodeId).toBe(node.nodeId);
    expect(err.kind).toBe('handshake');
    expect(net.isConnected(node.nodeId)).toBe(false);
  });

  it('reports a wanted validator a PeerList names, and leaves it to the caller to make it a target', async () => {
    const hidden = await startNode();
    const gossiper = await startNode({ peerList: () => [hidden.claimedIpPort()] });
    const net = await startSharded();
    net.setWanted([hidden.nodeId]);
    const found = once<[{ nodeId: string; host: string; port: number; certificate: { nodeId: string } }]>(net, 'discovered');
    net.setTargets([targetOf(gossiper)]);
    const [peer] = await found;
    expect(peer).toMatchObject({ nodeId: hidden.nodeId, ...hidden.address, certificate: { nodeId: hidden.nodeId } });
    expect(net.stats().targets).toBe(1);
    net.setTargets([targetOf(gossiper), { nodeId: peer.nodeId, host: peer.host, port: peer.port }]);
    await waitFor(() => net.isConnected(hidden.nodeId), 'the discovered node');
  });

  it('a shard that dies fails its outstanding asks at once, disconnects its validators, and comes back with them', async () => {
    const nodes = await nodesOnBothShards(2);
    const net = await startSharded({ restartMinMs: 50 });
    net.setTargets(nodes.map(targetOf));
    await waitFor(() => net.stats().connected === nodes.length, 'connected');
    const onDeadShard = nodes.filter((n) => shardOf(n.nodeId, 2) === 0);
    const survivors = nodes.filter((n) => shardOf(n.nodeId, 2) === 1);
    const victim = onDeadShard[0]!;
    // Dropped by the node: outstanding until the shard's 60 s timeout, unless the shard's death ends it.
    const stuck = askOnce(net, victim.nodeId, request(1, new Uint8Array(32).fill(3)), 60_000);
    const down: string[] = [];
    net.on('disconnected', (nodeId) => down.push(nodeId));
    await new Promise((r) => setTimeout(r, 50));
    await workerOf(net, 0).terminate();
    const { err } = await stuck;
    expect((err as P2PRequestError).reason).toBe('disconnected');
    // Reported at once, with the failed asks: every validator of the dead shard, none of the other's.
    expect(down.sort()).toEqual(onDeadShard.map((n) => n.nodeId).sort());
    expect(survivors.every((n) => net.isConnected(n.nodeId))).toBe(true);
    await waitFor(() => onDeadShard.every((n) => net.isConnected(n.nodeId)), 'the restarted shard to reconnect', 30_000);
    expect((await askOnce(net, victim.nodeId, request(2))).answer?.kind).toBe('signature');
  });

  it('close ends outstanding asks as closed and refuses new ones', async () => {
    const node = await startNode();
    const net = await startSharded();
    net.setTargets([targetOf(node)]);
    await waitFor(() => net.isConnected(node.nodeId), 'connected');
    const stuck = askOnce(net, node.nodeId, request(1, new Uint8Array(32).fill(3)), 60_000);
    await new Promise((r) => setTimeout(r, 50));
    await net.close();
    expect(((await stuck).err as P2PRequestError).reason).toBe('closed');
    expect(((await askOnce(net, node.nodeId, request(2))).err as P2PRequestError).reason).toBe('closed');
    expect(net.stats().connected).toBe(0);
  });

  it('refuses zero shards', () => {
    expect(() => new ShardedP2PNetwork({ shards: 0, networkId: NETWORK_ID, identity: ephemeralStakingIdentity(), bls })).toThrow(RangeError);
  });
});

it('shardOf spreads NodeIDs over the shards and always puts one in the same place', () => {
  const ids = Array.from({ length: 4000 }, (_, i) => `NodeID-${(i * 2654435761).toString(36)}${i}`);
  const counts = [0, 0, 0, 0];
  for (const id of ids) counts[shardOf(id, 4)]!++;
  for (const c of counts) expect(c).toBeGreaterThan(800);
  expect(ids.every((id) => shardOf(id, 4) === shardOf(id, 4))).toBe(true);
});
