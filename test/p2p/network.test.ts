// The transport against real TLS sockets on 127.0.0.1: connection, ACP-118 answers and
// refusals from simulated avalanchego nodes, compression, ping/pong, request IDs, timeouts.
import { afterEach, describe, expect, it } from 'vitest';
import { P2PNetwork, P2PRequestError, APP_ERROR, EVM_VERIFIER_ERROR } from '../../src/p2p/index.js';
import { P2PConnection } from '../../src/p2p/connection.js';
import { encodeSignatureRequestAppBytes } from '../../src/p2p/acp118.js';
import {
  addressedCallMessage,
  closeAll,
  EVM_CHAIN,
  hashMessage,
  NETWORK_ID,
  nextDialFailure,
  once,
  P_CHAIN,
  startNetwork,
  startNode,
  targetOf,
  verifies,
  waitFor,
  startRawPeer,
} from './helpers.js';
import type { SimulatedAvalancheNode } from '../../src/devnet/avalanchego-node/node.js';
import { REQUEST_CANCELLED } from '../../src/aggregator/peer-source.js';

afterEach(closeAll);

async function connected(node: SimulatedAvalancheNode, net?: P2PNetwork): Promise<P2PNetwork> {
  const n = net ?? (await startNetwork());
  const up = once(n, 'connected');
  n.addTargets([targetOf(node)]);
  await up;
  return n;
}

function ask(net: P2PNetwork, node: SimulatedAvalancheNode, message: Uint8Array, opts: { chainId?: Uint8Array; timeoutMs?: number; signal?: AbortSignal; justification?: Uint8Array } = {}) {
  return net.request(node.nodeId, { chainId: opts.chainId ?? EVM_CHAIN, message, justification: opts.justification ?? new Uint8Array() }, opts);
}

/** The live connection the network holds to a node (for white-box counters). */
function connectionTo(net: P2PNetwork, nodeId: string): P2PConnection {
  return (net as unknown as { targets: Map<string, { conn: P2PConnection }> }).targets.get(nodeId)!.conn;
}

describe('connecting', () => {
  it('counts a peer connected only after its Handshake and PeerList, and reports its signed address', async () => {
    const node = await startNode();
    const net = await startNetwork();
    expect(net.isConnected(node.nodeId)).toBe(false);
    await connected(node, net);
    expect(net.isConnected(node.nodeId)).toBe(true);
    expect(net.connectedNodeIds()).toEqual([node.nodeId]);
    expect(net.peerAddress(node.nodeId)).toEqual(node.address);
    const conn = connectionTo(net, node.nodeId);
    expect(conn.received.get('handshake')).toBe(1);
    expect(conn.received.get('peerList')).toBe(1);
    await waitFor(() => node.connectedNodeIds().includes(net.nodeId), 'the node to see us');
  });

  it('receives the PeerList zstd-compressed from a node that compresses, and accepts uncompressed ones too', async () => {
    const zipped = await startNode({ compress: true });
    const plain = await startNode({ compress: false });
    const net = await startNetwork();
    await connected(zipped, net);
    await connected(plain, net);
    expect(connectionTo(net, zipped.nodeId).receivedCompressed).toBe(1);
    expect(connectionTo(net, plain.nodeId).receivedCompressed).toBe(0);
  });

  it('is refused by a node on another network, and by a node whose minimum version is above ours', async () => {
    const other = await startNode({ networkId: NETWORK_ID + 1 });
    const strict = await startNode({ minCompatible: { name: 'avalanchego', major: 1, minor: 16, patch: 0 } });
    const net = await startNetwork();
    for (const node of [other, strict]) {
      const [id, err] = await nextDialFailure(net, () => net.addTargets([targetOf(node)]));
      expect(id).toBe(node.nodeId);
      expect(err.kind).toBe('handshake');
      expect(net.isConnected(node.nodeId)).toBe(false);
    }
  });

  it('refuses a node whose clock is 2 minutes off (and the node refuses us)', async () => {
    const skewed = await startNode({ clockSkewMs: 120_000 });
    const net = await startNetwork();
    const [, err] = await nextDialFailure(net, () => net.addTargets([targetOf(skewed)]));
    expect(err.kind).toBe('handshake');
    expect(skewed.connectedNodeIds()).toEqual([]);
  });

  it('is refused by a node that knows our NodeID as a validator with another BLS key', async () => {
    const net = new P2PNetwork({ networkId: NETWORK_ID, bls: (await import('./helpers.js')).bls });
    const wrongKey = (await import('./helpers.js')).bls.publicKeyOf((await import('./helpers.js')).bls.generateSecretKey());
    const node = await startNode({ validatorBlsKey: (id) => (id === net.nodeId ? wrongKey : undefined) });
    await net.start();
    await nextDialFailure(net, () => net.addTargets([targetOf(node)]));
    expect(net.isConnected(node.nodeId)).toBe(false);
    await net.close();
  });

  it('accepts peers from 1.14.0 by default and claims the newest version, 1.15.0', async () => {
    const oldNode = await startNode({ version: { name: 'avalanchego', major: 1, minor: 14, patch: 0 } });
    const net = await connected(oldNode);
    expect(connectionTo(net, oldNode.nodeId).peer?.version).toEqual({ name: 'avalanchego', major: 1, minor: 14, patch: 0 });
  });
});

describe('ACP-118 requests', () => {
  it('gets a BLS signature over the message from an EVM chain for its own messages', async () => {
    const node = await startNode();
    const net = await connected(node);
    const msg = hashMessage(7);
    const answer = await ask(net, node, msg.bytes);
    expect(answer.kind === 'signature' && verifies(node.blsPublicKey, msg.bytes, answer.signature)).toBe(true);
    expect(connectionTo(net, node.nodeId).receivedCompressed).toBeGreaterThanOrEqual(2); // PeerList + AppResponse
  });

  it('passes the EVM verifier codes through as refusals: parse = 1, verify = 2', async () => {
    const node = await startNode();
    const net = await connected(node);
    const foreign = new Uint8Array(32).fill(9);
    // A ValidatorUptime message the node cannot vouch for (subnet-evm's offchain check): verify = 2.
    const uptimeFromElsewhere = addressedCallMessage(new Uint8Array(46), { chain: foreign });
    expect(await ask(net, node, uptimeFromElsewhere.bytes)).toMatchObject({ kind: 'refused', code: EVM_VERIFIER_ERROR.verify });
    const junkCall = addressedCallMessage(Uint8Array.of(1, 2, 3), { chain: foreign });
    expect(await ask(net, node, junkCall.bytes)).toMatchObject({ kind: 'refused', code: EVM_VERIFIER_ERROR.parse });
    const notAPayload = (await import('../../src/warp/index.js')).newUnsignedMessage(NETWORK_ID, EVM_CHAIN, Uint8Array.of(0, 0, 0, 0, 0, 9));
    expect(await ask(net, node, notAPayload.bytes)).toMatchObject({ kind: 'refused', code: EVM_VERIFIER_ERROR.parse });
  });

  it('maps p2p-layer refusals: an unparseable Warp message is -1', async () => {
    const node = await startNode();
    const net = await connected(node);
    const answer = await ask(net, node, Uint8Array.of(1, 2, 3));
    expect(answer).toMatchObject({ kind: 'refused', code: APP_ERROR.unexpected });
  });

  it('asks the P-Chain verifier with the justification and passes its code on', async () => {
    const seen: Uint8Array[] = [];
    const node = await startNode({
      chains: [{ kind: 'pchain', chainId: P_CHAIN, verify: (_m, justification) => (seen.push(justification), justification.length === 0 ? { code: 5, message: 'failed to parse justification' } : null) }],
    });
    const net = await connected(node);
    const msg = addressedCallMessage(Uint8Array.of(0, 0), { chain: P_CHAIN });
    expect(await ask(net, node, msg.bytes, { chainId: P_CHAIN })).toEqual({ kind: 'refused', code: 5, reason: 'failed to parse justification' });
    const ok = await ask(net, node, msg.bytes, { chainId: P_CHAIN, justification: Uint8Array.of(42) });
    expect(ok.kind === 'signature' && verifies(node.blsPublicKey, msg.bytes, ok.signature)).toBe(true);
    expect(seen.map((j) => [...j])).toEqual([[], [42]]);
  });

  it('times out on a chain the node does not run (it drops the request) and frees the slot', async () => {
    const node = await startNode();
    const net = await connected(node);
    const err = await ask(net, node, hashMessage(1).bytes, { chainId: new Uint8Array(32).fill(3), timeoutMs: 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(P2PRequestError);
    expect((err as P2PRequestError).reason).toBe('timeout');
    expect(net.stats().outstanding).toBe(0);
    expect(node.stats().dropped).toBe(1);
    // The connection is still good.
    expect((await ask(net, node, hashMessage(2).bytes)).kind).toBe('signature');
  });

  it('aborts on the caller signal and fails fast when not connected, overloaded or closed', async () => {
    const node = await startNode();
    const net = await connected(node);
    const ac = new AbortController();
    const pending = ask(net, node, hashMessage(1).bytes, { chainId: new Uint8Array(32).fill(3), signal: ac.signal });
    ac.abort();
    expect(await pending.catch((e: P2PRequestError) => e.reason)).toBe('aborted');
    expect(await net.request('NodeID-111111111111111111116DBWJs', { chainId: EVM_CHAIN, message: new Uint8Array(), justification: new Uint8Array() }).catch((e: P2PRequestError) => e.reason)).toBe('not-connected');

    const small = await startNetwork({ limits: { maxOutstandingRequests: 2 } });
    await connected(node, small);
    const unknown = new Uint8Array(32).fill(3);
    const first = [ask(small, node, hashMessage(1).bytes, { chainId: unknown, timeoutMs: 60_000 }), ask(small, node, hashMessage(2).bytes, { chainId: unknown, timeoutMs: 60_000 })];
    expect(await ask(small, node, hashMessage(3).bytes).catch((e: P2PRequestError) => e.reason)).toBe('overloaded');
    await small.close();
    expect(await Promise.all(first.map((p) => p.catch((e: P2PRequestError) => e.reason)))).toEqual(['closed', 'closed']);
    expect(await ask(small, node, hashMessage(4).bytes).catch((e: P2PRequestError) => e.reason)).toBe('closed');
  });

  it('cancelled with the aggregator’s shared REQUEST_CANCELLED, rejects with that very object (no Error per request)', async () => {
    const node = await startNode();
    const net = await connected(node);
    const ac = new AbortController();
    const unknownChain = new Uint8Array(32).fill(3);
    const pending = [1, 2, 3].map((i) => ask(net, node, hashMessage(i).bytes, { chainId: unknownChain, signal: ac.signal }));
    ac.abort(REQUEST_CANCELLED);
    for (const p of pending) expect(await p.catch((e: unknown) => e)).toBe(REQUEST_CANCELLED);
    // Already aborted when asked: the same.
    expect(await ask(net, node, hashMessage(4).bytes, { signal: ac.signal }).catch((e: unknown) => e)).toBe(REQUEST_CANCELLED);
  });

  it('ask (the aggregator’s callback form): the answer through the callback; cancelled, its answer is ignored, not a fault', async () => {
    const node = await startNode();
    const net = await connected(node);
    const req = (i: number) => ({ chainId: EVM_CHAIN, message: hashMessage(i).bytes, justification: new Uint8Array() });
    const answer = await new Promise<string | undefined>((resolve) => net.ask(node.nodeId, req(1), 5_000, (err, a) => resolve(err?.message ?? a?.kind)));
    expect(answer).toBe('signature');
    const heard: unknown[] = [];
    const drops: string[] = [];
    net.on('dropped', (_id, kind) => drops.push(kind));
    net.ask(node.nodeId, req(2), 5_000, (err, a) => heard.push(err ?? a)).cancel('cancelled');
    expect(net.stats().outstanding).toBe(0);
    // The node answers the cancelled request anyway; the next answer comes after it on the same connection.
    const next = await new Promise<string | undefined>((resolve) => net.ask(node.nodeId, req(3), 5_000, (err, a) => resolve(err?.message ?? a?.kind)));
    expect(next).toBe('signature');
    expect(heard).toEqual([]);
    expect(net.isConnected(node.nodeId)).toBe(true);
    // Its late answer came: dropped and counted.
    expect(drops).toEqual(['late-answer']);
  });

  it('ask keeps no timer per request: one its caller never cancels is swept up as timed out when the connection’s timer next runs', async () => {
    const node = await startNode();
    const net = await connected(node, await startNetwork({ limits: { pingIntervalMs: 300 } }));
    const unknownChain = new Uint8Array(32).fill(3);
    const conn = connectionTo(net, node.nodeId) as unknown as { timerAt: number };
    const timerAt = conn.timerAt;
    const swept = new Promise<Error | undefined>((resolve) =>
      net.ask(node.nodeId, { chainId: unknownChain, message: hashMessage(1).bytes, justification: new Uint8Array() }, 50, (e) => resolve(e)),
    );
    // Its deadline, sooner than the next ping, did not move the connection's one timer.
    expect(conn.timerAt).toBe(timerAt);
    const err = await swept;
    expect((err as P2PRequestError).reason).toBe('timeout');
    expect(net.stats().outstanding).toBe(0);
    expect(net.isConnected(node.nodeId)).toBe(true);
  });

  it('sends odd request IDs only', async () => {
    const ids: number[] = [];
    const peer = await startRawPeer((s) => {
      s.completeHandshake();
      const answer = (): void => {
        void s.next('appRequest').then((m) => {
          if (m.case !== 'appRequest') return;
          ids.push(m.value.requestId);
          s.send({ case: 'appError', value: { $typeName: 'p2p.AppError', chainId: m.value.chainId, requestId: m.value.requestId, errorCode: 2, errorMessage: 'no' } });
          answer();
        });
      };
      answer();
    });
    const net = await startNetwork();
    const up = once(net, 'connected');
    net.addTargets([{ nodeId: peer.nodeId, host: peer.host, port: peer.port }]);
    await up;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => net.request(peer.nodeId, { chainId: EVM_CHAIN, message: hashMessage(i).bytes, justification: new Uint8Array() })));
    expect(answers.every((a) => a.kind === 'refused' && a.code === 2)).toBe(true);
    expect(ids).toHaveLength(6);
    expect(ids.every((id) => id % 2 === 1)).toBe(true);
    expect(new Set(ids).size).toBe(6);
  });

  it('cuts a malicious peer’s text where it enters: a 1.5 MB AppError message (compressed) and a 1 MB client name in a refused Handshake (issue 39)', async () => {
    const huge = 'm'.repeat(1_500_000);
    const liar = await startRawPeer((s) => {
      s.completeHandshake();
      void s.next('appRequest').then((m) => {
        if (m.case !== 'appRequest') return;
        s.send({ case: 'appError', value: { $typeName: 'p2p.AppError', chainId: m.value.chainId, requestId: m.value.requestId, errorCode: 987_654, errorMessage: huge } }, true);
      });
    });
    const logged: number[] = [];
    const log = (obj: object): void => void logged.push(JSON.stringify(obj).length);
    const net = await startNetwork({ logger: { debug: log, info: log, warn: log } });
    const up = once(net, 'connected');
    net.addTargets([{ nodeId: liar.nodeId, host: liar.host, port: liar.port }]);
    await up;
    const answer = await net.request(liar.nodeId, { chainId: EVM_CHAIN, message: hashMessage(1).bytes, justification: new Uint8Array() });
    expect(answer).toMatchObject({ kind: 'refused', code: 987_654 });
    expect((answer as { reason: string }).reason).toBe(`${'m'.repeat(512)}… (cut, 1500000 characters)`);

    // An incompatible version under a 1 MB name: refused, and the refusal logged short.
    const oldClient = await startRawPeer((s) => {
      const hs = s.handshake();
      hs.client = { $typeName: 'p2p.Client', name: 'c'.repeat(1_000_000), major: 1, minor: 0, patch: 0 };
      s.send({ case: 'handshake', value: hs }, true);
    });
    const refused = once(net, 'dialFailed');
    net.addTargets([{ nodeId: oldClient.nodeId, host: oldClient.host, port: oldClient.port }]);
    const [, err] = (await refused) as [string, Error];
    expect(err.message).toMatch(/version/);
    expect(err.message.length).toBeLessThan(1_000);
    expect(Math.max(...logged)).toBeLessThan(2_000);
  });

  it('an EVM node never answers an even request ID (legacy codec) but answers the odd one after it', async () => {
    const node = await startNode();
    const net = await connected(node);
    const conn = connectionTo(net, node.nodeId);
    const msg = hashMessage(5);
    const appBytes = encodeSignatureRequestAppBytes(msg.bytes, new Uint8Array());
    conn.sendMessage({ case: 'appRequest', value: { $typeName: 'p2p.AppRequest', chainId: EVM_CHAIN, requestId: 1_000_000, deadline: 5_000_000_000n, appBytes } });
    const answer = await ask(net, node, msg.bytes);
    expect(answer.kind).toBe('signature');
    expect(node.stats()).toMatchObject({ dropped: 1, answered: 1 });
    expect(conn.received.get('appResponse')).toBe(1);
    expect(conn.isReady).toBe(true);
  });
});

describe('liveness', () => {
  it('answers every Ping with one empty Pong, and keeps a chatty connection up', async () => {
    const node = await startNode({ limits: { pingIntervalMs: 30, silenceTimeoutMs: 2_000 } });
    const net = await connected(node);
    await waitFor(() => (node.receivedFrom(net.nodeId).get('pong') ?? 0) >= 5, 'five pongs');
    // An unsolicited or duplicate Pong would have made the node close the connection.
    expect(node.connectedNodeIds()).toEqual([net.nodeId]);
    expect(net.isConnected(node.nodeId)).toBe(true);
    const pongs = node.receivedFrom(net.nodeId).get('pong')!;
    const pings = connectionTo(net, node.nodeId).received.get('ping')!;
    expect(pings === pongs || pings === pongs + 1).toBe(true); // one Pong per Ping (the last may be in flight)
  });

  it('pings the peer itself and gets Pongs back', async () => {
    const node = await startNode();
    const net = await startNetwork({ limits: { pingIntervalMs: 30 } });
    await connected(node, net);
    await waitFor(() => (connectionTo(net, node.nodeId).received.get('pong') ?? 0) >= 3, 'three pongs');
    expect(net.isConnected(node.nodeId)).toBe(true);
  });
});
