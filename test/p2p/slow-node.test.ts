// What an honest but slow or busy avalanchego node does is dropped and counted ('dropped'), never
// a fault, a strike or a disconnection: avalanchego itself drops what it does not expect.
import { afterEach, describe, expect, it } from 'vitest';
import type { DropKind, P2PNetwork } from '../../src/p2p/index.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { closeAll, EVM_CHAIN, hashMessage, once, startNetwork, startRawPeer, type RawSession } from './helpers.js';

afterEach(closeAll);

const STRICT = { penalties: { threshold: 1, windowMs: 60_000, cooldownMs: 600_000, maxTrackedKeys: 10 } };

async function connectedTo(script: (s: RawSession) => void, opts: Parameters<typeof startNetwork>[0] = {}): Promise<{ net: P2PNetwork; nodeId: string; drops: DropKind[]; faults: string[] }> {
  const peer = await startRawPeer(script);
  const net = await startNetwork({ ...STRICT, ...opts });
  const drops: DropKind[] = [];
  const faults: string[] = [];
  net.on('dropped', (_id, kind) => drops.push(kind));
  net.on('disconnected', (_id, reason) => faults.push(reason.kind === 'fault' ? reason.fault : reason.kind));
  const up = once(net, 'connected');
  net.addTargets([{ nodeId: peer.nodeId, host: peer.host, port: peer.port }]);
  await up;
  return { net, nodeId: peer.nodeId, drops, faults };
}

const request = { chainId: EVM_CHAIN, message: hashMessage(1).bytes, justification: new Uint8Array() };

describe('a slow honest node is not punished', () => {
  it('answers its backlog late, past the 4,096 remembered expired request IDs: dropped and counted, the connection stays', async () => {
    let session: RawSession | undefined;
    const { net, nodeId, drops, faults } = await connectedTo(
      (s) => {
        session = s;
        s.completeHandshake();
      },
      { limits: { maxOutstandingRequests: 5_000 } },
    );
    // 4,200 requests given up on at once: the first one's ID falls out of the remembered ones.
    const given = await Promise.all(Array.from({ length: 4_200 }, () => net.request(nodeId, request, { timeoutMs: 1 }).catch((e: { reason?: string }) => e.reason)));
    expect(new Set(given)).toEqual(new Set(['timeout']));
    const first = await session!.next('appRequest');
    if (first.case !== 'appRequest') throw new Error('unreachable');
    const dropped = once<[string, DropKind]>(net, 'dropped');
    session!.send({ case: 'appError', value: { $typeName: 'p2p.AppError', chainId: EVM_CHAIN, requestId: first.value.requestId, errorCode: -4, errorMessage: 'throttled' } });
    expect((await dropped)[1]).toBe('late-answer');
    expect(drops).toEqual(['late-answer']);
    expect(net.isConnected(nodeId)).toBe(true);
    expect(faults).toEqual([]);
  });

  it('a Pong beyond the Pings sent (queued behind a stall): dropped and counted, the connection stays', async () => {
    const { net, nodeId, drops, faults } = await connectedTo((s) => {
      s.completeHandshake();
      setTimeout(() => s.send({ case: 'pong', value: { $typeName: 'p2p.Pong' } }), 50);
    });
    await once(net, 'dropped');
    expect(drops).toEqual(['surplus-pong']);
    expect(net.isConnected(nodeId)).toBe(true);
    expect(faults).toEqual([]);
  });

  it('a peer that has not read the last maxWriteBufferBytes: the request fails as overloaded, counted, no fault', async () => {
    let session: RawSession | undefined;
    const { net, nodeId, drops, faults } = await connectedTo(
      (s) => {
        session = s;
        s.completeHandshake();
        // Busy: it stops reading what it is sent.
        setTimeout(() => s.socket.pause(), 20);
      },
      { limits: { maxWriteBufferBytes: 64 * 1024 } },
    );
    await new Promise((r) => setTimeout(r, 100));
    const big = { ...request, justification: new Uint8Array(256 * 1024) };
    let overloaded: unknown;
    for (let i = 0; i < 200 && overloaded === undefined; i++) {
      await net
        .request(nodeId, big, { timeoutMs: 1 })
        .then(() => undefined)
        .catch((e: { reason?: string }) => (e.reason === 'overloaded' ? (overloaded = e) : undefined));
    }
    expect(overloaded).toBeDefined();
    expect(drops).toContain('write-backlog');
    expect(net.isConnected(nodeId)).toBe(true);
    expect(faults).toEqual([]);
    session!.socket.destroy(); // a paused socket would hold the listener's close
  });
});

describe('liveness', () => {
  it('pings on a timer, whether or not the last Ping was answered (one lost Pong must not end the pings)', async () => {
    let session: RawSession | undefined;
    const { net, nodeId } = await connectedTo(
      (s) => {
        session = s;
        s.completeHandshake();
        // It answers nothing: every Pong is lost.
      },
      { limits: { pingIntervalMs: 50 } },
    );
    for (let i = 0; i < 4; i++) await session!.next('ping', 5_000);
    expect(net.isConnected(nodeId)).toBe(true);
  });

  it('a Pong for each of several Pings sent while the peer stalled is expected, not dropped', async () => {
    let session: RawSession | undefined;
    const { net, drops } = await connectedTo(
      (s) => {
        session = s;
        s.completeHandshake();
      },
      { limits: { pingIntervalMs: 50 } },
    );
    await session!.next('ping', 5_000);
    await session!.next('ping', 5_000);
    for (let i = 0; i < 2; i++) session!.send({ case: 'pong', value: { $typeName: 'p2p.Pong' } });
    // Either Pong dropped would be reported as it is read.
    await new Promise((r) => setTimeout(r, 200));
    expect(drops).toEqual([]);
    expect(net.stats().connected).toBe(1);
  });
});

describe('deadlines on the wire', () => {
  it('sends min(timeout, 10 s) as the AppRequest deadline (nodes cap it at 10 s), and still waits the whole timeout itself', async () => {
    let session: RawSession | undefined;
    const { net, nodeId } = await connectedTo((s) => {
      session = s;
      s.completeHandshake();
    });
    const long = net.request(nodeId, request, { timeoutMs: 30_000 }).catch((e: Error) => e);
    const short = net.request(nodeId, request, { timeoutMs: 1_500 }).catch((e: Error) => e);
    const first = await session!.next('appRequest');
    const second = await session!.next('appRequest');
    if (first.case !== 'appRequest' || second.case !== 'appRequest') throw new Error('unreachable');
    expect([first.value.deadline, second.value.deadline]).toEqual([10_000_000_000n, 1_500_000_000n]);
    // The long one is still waited for past what the wire said: answered now, it gets its answer.
    expect(await short).toMatchObject({ reason: 'timeout' });
    session!.send({ case: 'appError', value: { $typeName: 'p2p.AppError', chainId: EVM_CHAIN, requestId: first.value.requestId, errorCode: -4, errorMessage: 'throttled' } });
    expect(await long).toMatchObject({ kind: 'refused', code: -4 });
  });
});

describe('requests from the node', () => {
  it('are answered at once with the AppError avalanchego’s router sends for a handler it lacks (-2), so the node does not wait out its timeout', async () => {
    let session: RawSession | undefined;
    const { net, nodeId, faults } = await connectedTo((s) => {
      session = s;
      s.completeHandshake();
    });
    // A syncing node asks its peers for state (an even request ID, as coreth's legacy handlers use).
    session!.send({ case: 'appRequest', value: { $typeName: 'p2p.AppRequest', chainId: EVM_CHAIN, requestId: 42, deadline: 5_000_000_000n, appBytes: Uint8Array.of(0, 1, 2) } });
    const answer = await session!.next('appError', 5_000);
    if (answer.case !== 'appError') throw new Error('unreachable');
    expect([answer.value.requestId, answer.value.errorCode, answer.value.errorMessage]).toEqual([42, -2, 'unregistered handler']);
    expect(bytesToHex(answer.value.chainId)).toBe(bytesToHex(EVM_CHAIN));
    expect(net.isConnected(nodeId)).toBe(true);
    expect(faults).toEqual([]);
  });
});
