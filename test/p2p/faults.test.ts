// What a faulty or malicious peer gets: disconnected and penalised, without stalling the other
// connections; and failures to reach a peer are errors and timeouts, not crashes. Also
// reconnect backoff (on an injected clock), caps and discovery from PeerList gossip.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { nodeIdToString } from '../../src/warp/index.js';
import { type CloseReason, type P2PNetwork, type Timers } from '../../src/p2p/index.js';
import { encodeFrame } from '../../src/p2p/frames.js';
import { closeAll, EVM_CHAIN, hashMessage, nextDialFailure, once, startNetwork, startNode, startRawPeer, targetOf, waitFor, type RawSession } from './helpers.js';

afterEach(closeAll);

async function faultOf(script: (s: RawSession) => void, netOpts: Parameters<typeof startNetwork>[0] = {}): Promise<{ reason: CloseReason; net: P2PNetwork; nodeId: string }> {
  const peer = await startRawPeer(script);
  const net = await startNetwork(netOpts);
  const down = once<[string, CloseReason]>(net, 'disconnected');
  net.addTargets([{ nodeId: peer.nodeId, host: peer.host, port: peer.port }]);
  const [nodeId, reason] = await down;
  return { reason, net, nodeId };
}

describe('faulty peers are disconnected with a fault', () => {
  it('garbage bytes', async () => {
    const { reason } = await faultOf((s) => {
      s.completeHandshake();
      s.socket.write(encodeFrame(Uint8Array.of(0xff, 0xff, 0xff, 0xff), 100));
    });
    expect(reason).toMatchObject({ kind: 'fault', fault: 'unparseable-message' });
  });

  it('a frame length over 2 MiB, refused before its body arrives', async () => {
    const { reason } = await faultOf((s) => {
      s.completeHandshake();
      s.socket.write(Uint8Array.of(0x00, 0x20, 0x00, 0x01));
    });
    expect(reason).toMatchObject({ kind: 'fault', fault: 'oversized-frame' });
  });

  it('a zstd bomb', async () => {
    const { zstdCompress } = await import('../../src/p2p/compression.js');
    const { reason } = await faultOf((s) => {
      s.completeHandshake();
      const bomb = zstdCompress(new Uint8Array(3 * 1024 * 1024));
      s.socket.write(encodeFrame(Uint8Array.from([0x12, ...encodeLength(bomb.length), ...bomb]), 1 << 30));
    });
    expect(reason).toMatchObject({ kind: 'fault', fault: 'bad-compression' });
  });

  it('a second Handshake', async () => {
    const { reason } = await faultOf((s) => {
      s.completeHandshake();
      s.send({ case: 'handshake', value: s.handshake() });
    });
    expect(reason).toMatchObject({ kind: 'fault', fault: 'second-handshake' });
  });

  it('an answer to a request never made', async () => {
    const { reason } = await faultOf((s) => {
      s.completeHandshake();
      s.send({ case: 'appResponse', value: { $typeName: 'p2p.AppResponse', chainId: EVM_CHAIN, requestId: 77, appBytes: new Uint8Array() } });
    });
    expect(reason).toMatchObject({ kind: 'fault', fault: 'unrequested-response' });
  });

  it('a flood of messages', async () => {
    const { reason } = await faultOf(
      (s) => {
        s.completeHandshake();
        for (let i = 0; i < 100; i++) s.send({ case: 'appGossip', value: { $typeName: 'p2p.AppGossip', chainId: EVM_CHAIN, appBytes: Uint8Array.of(i) } });
      },
      { limits: { maxMessagesPerSecond: 50 } },
    );
    expect(reason).toMatchObject({ kind: 'fault', fault: 'flood' });
  });

  it('a signature that is not 96 bytes fails the request as a protocol error', async () => {
    const peer = await startRawPeer((s) => {
      s.completeHandshake();
      void s.next('appRequest').then((m) => {
        if (m.case !== 'appRequest') return;
        s.send({ case: 'appResponse', value: { $typeName: 'p2p.AppResponse', chainId: m.value.chainId, requestId: m.value.requestId, appBytes: Uint8Array.of(0x0a, 1, 9) } });
      });
    });
    const net = await startNetwork();
    const up = once(net, 'connected');
    net.addTargets([{ nodeId: peer.nodeId, host: peer.host, port: peer.port }]);
    await up;
    const err = await net.request(peer.nodeId, { chainId: EVM_CHAIN, message: hashMessage(1).bytes, justification: new Uint8Array() }).catch((e) => e);
    expect(err.reason).toBe('protocol');
  });

  it('bans a peer after repeated faults and stops dialling it for the cooldown', async () => {
    let sessions = 0;
    const peer = await startRawPeer((s) => {
      sessions++;
      s.completeHandshake();
      s.send({ case: 'handshake', value: s.handshake() });
    });
    const clock = new ManualTimers();
    const net = await startNetwork({ timers: clock, penalties: { threshold: 2, windowMs: 60_000, cooldownMs: 600_000, maxTrackedKeys: 10 }, random: () => 0 });
    net.addTargets([{ nodeId: peer.nodeId, host: peer.host, port: peer.port }]);
    await once(net, 'disconnected');
    clock.advance(10_000);
    await once(net, 'disconnected');
    expect(sessions).toBe(2);
    clock.advance(500_000);
    expect(clock.pending()).toBe(1); // the redial waits for the ban, not the backoff
    clock.advance(100_000);
    await once(net, 'disconnected');
    expect(sessions).toBe(3);
  });
});

describe('failures to reach a peer are errors, not crashes', () => {
  it('a certificate with another NodeID than the target (a stale address): no connection, counted, no strike against whoever holds the address now', async () => {
    const node = await startNode();
    const net = await startNetwork({ penalties: { threshold: 1, windowMs: 60_000, cooldownMs: 600_000, maxTrackedKeys: 10 } });
    const drops: [string, string][] = [];
    net.on('dropped', (id, kind) => drops.push([id, kind]));
    const [, err] = await nextDialFailure(net, () => net.addTargets([{ nodeId: 'NodeID-111111111111111111116DBWJs', ...node.address }]));
    expect(err.kind).toBe('wrong-node-id');
    expect(err.actualNodeId).toBe(node.nodeId);
    expect(node.stats().connections).toBe(0);
    expect(drops).toEqual([[node.nodeId, 'stale-address']]);
    // Not banned: as a target of its own it is dialled and connects at once.
    const up = once(net, 'connected');
    net.addTargets([targetOf(node)]);
    expect((await up)[0]).toBe(node.nodeId);
  });

  it('a refused port, a server that speaks no TLS, a silent TLS peer, a peer that goes quiet', async () => {
    const net = await startNetwork({ connectTimeoutMs: 2_000, limits: { handshakeTimeoutMs: 500, silenceTimeoutMs: 500 } });
    const closedPort = await freePort();
    const refused = await nextDialFailure(net, () => net.addTargets([{ nodeId: 'NodeID-111111111111111111116DBWJs', host: '127.0.0.1', port: closedPort }]));
    expect(refused[1].kind).toBe('refused');

    const plain = createTcpServer((sock) => sock.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', () => r()));
    // Another NodeID: the first one may not be dialled again for 10 s.
    const noTls = await nextDialFailure(net, () => net.setTargets([{ nodeId: randomNodeId(), host: '127.0.0.1', port: (plain.address() as AddressInfo).port }]));
    expect(noTls[1].kind).toBe('tls');
    plain.close();

    const silent = await startRawPeer(() => {});
    const [, err] = await nextDialFailure(net, () => net.setTargets([{ nodeId: silent.nodeId, host: silent.host, port: silent.port }]));
    expect(err.kind).toBe('handshake');
    expect(err.message).toMatch(/no Handshake and PeerList/);

    const quiet = await startRawPeer((s) => s.completeHandshake());
    const down = once<[string, CloseReason]>(net, 'disconnected');
    net.setTargets([{ nodeId: quiet.nodeId, host: quiet.host, port: quiet.port }]);
    expect((await down)[1]).toMatchObject({ kind: 'timeout' });
  });

  it('a misbehaving peer does not stall requests to a good one', async () => {
    const good = await startNode();
    const flooder = await startRawPeer((s) => {
      s.completeHandshake();
      const spam = (): void => {
        if (s.socket.destroyed) return;
        s.send({ case: 'appGossip', value: { $typeName: 'p2p.AppGossip', chainId: EVM_CHAIN, appBytes: new Uint8Array(1024) } });
        setImmediate(spam);
      };
      spam();
    });
    const net = await startNetwork({ limits: { maxMessagesPerSecond: 500 } });
    const both = waitFor(() => net.isConnected(good.nodeId), 'the good node');
    net.addTargets([targetOf(good), { nodeId: flooder.nodeId, host: flooder.host, port: flooder.port }]);
    await both;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => net.request(good.nodeId, { chainId: EVM_CHAIN, message: hashMessage(i).bytes, justification: new Uint8Array() })));
    expect(answers.every((a) => a.kind === 'signature')).toBe(true);
    await waitFor(() => !net.isConnected(flooder.nodeId), 'the flooder to be dropped');
  });
});

describe('reconnecting', () => {
  it('retries a validator no faster than every 10 s, backing off exponentially', async () => {
    const clock = new ManualTimers();
    const net = await startNetwork({ timers: clock, random: () => 0, reconnect: { minIntervalMs: 10_000, maxMs: 40_000 } });
    const port = await freePort();
    const attempts: number[] = [];
    net.on('dialFailed', () => attempts.push(clock.now()));
    net.addTargets([{ nodeId: 'NodeID-111111111111111111116DBWJs', host: '127.0.0.1', port }]);
    await waitFor(() => attempts.length === 1, 'the first attempt');
    for (const step of [9_999, 1, 19_999, 1, 39_999, 1, 39_999, 1]) {
      clock.advance(step);
      await new Promise((r) => setTimeout(r, 20));
    }
    await waitFor(() => attempts.length === 5, 'five attempts');
    expect(attempts).toEqual([0, 10_000, 30_000, 70_000, 110_000]);
  });

  it('reconnects after a healthy connection drops, and keeps at most maxPeers connections', async () => {
    const nodes = await Promise.all([startNode(), startNode(), startNode()]);
    const net = await startNetwork({ maxPeers: 2 });
    net.addTargets(nodes.map(targetOf));
    await waitFor(() => net.stats().connected === 2, 'two connections');
    expect(net.stats()).toMatchObject({ targets: 3, connected: 2 });
    const victim = net.connectedNodeIds()[0]!;
    const down = once<[string]>(net, 'disconnected');
    const node = nodes.find((n) => n.nodeId === victim)!;
    await node.close();
    expect((await down)[0]).toBe(victim);
    await waitFor(() => net.stats().connected === 2 && !net.isConnected(victim), 'the free slot to go to the third node');
  });
});

describe('scale', () => {
  it('connects to 20 validators with at most dialConcurrency dials at a time', async () => {
    const nodes = await Promise.all(Array.from({ length: 20 }, () => startNode()));
    const net = await startNetwork({ dialConcurrency: 3 });
    let maxDialing = 0;
    const sample = (): void => void (maxDialing = Math.max(maxDialing, net.stats().dialing));
    net.on('connected', sample);
    net.addTargets(nodes.map(targetOf));
    sample();
    await waitFor(() => net.stats().connected === 20, 'twenty connections', 30_000);
    expect(maxDialing).toBe(3);
    const answers = await Promise.all(nodes.map((n, i) => net.request(n.nodeId, { chainId: EVM_CHAIN, message: hashMessage(i).bytes, justification: new Uint8Array() })));
    expect(answers.filter((a) => a.kind === 'signature')).toHaveLength(20);
  });
});

describe('discovery from PeerList gossip', () => {
  it('learns a wanted validator address from a signed ClaimedIpPort and connects to it', async () => {
    const hidden = await startNode();
    const gossip = [hidden.claimedIpPort()];
    const gossiper = await startNode({ peerList: () => gossip });
    const net = await startNetwork();
    net.want([hidden.nodeId]);
    const found = once<[{ nodeId: string; host: string; port: number }]>(net, 'discovered');
    net.addTargets([targetOf(gossiper)]);
    const [peer] = await found;
    expect(peer).toMatchObject({ nodeId: hidden.nodeId, ...hidden.address });
    await waitFor(() => net.isConnected(hidden.nodeId), 'the discovered node');
  });

  it('setWanted replaces the wanted NodeIDs; pullPeerList asks a connected peer, which names only the wanted one', async () => {
    const [left, stays] = [await startNode(), await startNode()];
    const gossip: ReturnType<typeof left.claimedIpPort>[] = [];
    const gossiper = await startNode({ peerList: () => gossip });
    const net = await startNetwork();
    expect(net.pullPeerList()).toBe(false);
    net.want([left.nodeId]);
    net.setWanted([stays.nodeId]);
    const up = once(net, 'connected');
    net.addTargets([targetOf(gossiper)]);
    await up;
    gossip.push(left.claimedIpPort(), stays.claimedIpPort());
    const found = once<[{ nodeId: string }]>(net, 'discovered');
    expect(net.pullPeerList()).toBe(true);
    expect((await found)[0].nodeId).toBe(stays.nodeId);
    await waitFor(() => net.isConnected(stays.nodeId), 'the wanted node');
    expect(net.isConnected(left.nodeId)).toBe(false);
    expect(net.stats().targets).toBe(2);
  });

  it('drops a gossiper whose PeerList entry carries a bad IP signature', async () => {
    const hidden = await startNode();
    const forged = { ...hidden.claimedIpPort() };
    forged.ipPort += 1; // the signature covers the port
    const gossiper = await startNode({ peerList: () => [forged] });
    const net = await startNetwork();
    net.want([hidden.nodeId]);
    const down = once<[string, CloseReason]>(net, 'disconnected');
    net.addTargets([targetOf(gossiper)]);
    expect((await down)[1]).toMatchObject({ kind: 'fault', fault: 'bad-peer-list' });
    expect(net.isConnected(hidden.nodeId)).toBe(false);
  });
});

function randomNodeId(): string {
  return nodeIdToString(Uint8Array.from(randomBytes(20)));
}

function encodeLength(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A clock and timer queue that move only when told to. */
class ManualTimers implements Timers {
  private t = 0;
  private queue: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.nextId;
    this.queue.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.queue = this.queue.filter((q) => q.id !== handle);
  }
  pending(): number {
    return this.queue.length;
  }
  advance(ms: number): void {
    this.t += ms;
    const due = this.queue.filter((q) => q.at <= this.t);
    this.queue = this.queue.filter((q) => q.at > this.t);
    for (const q of due) q.fn();
  }
}
