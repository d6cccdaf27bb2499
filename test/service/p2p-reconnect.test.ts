// A validator that stops and comes back (a restart, an upgrade): warpgate's redials to it fail
// meanwhile and back off (10 s, 20 s, 40 s … up to p2p.reconnectMaxMs), so on its backoff alone
// it would reconnect long after the validator is back. For 10 minutes after the drop it asks
// info.peers of the upstream node every reconnectMinIntervalMs whether the node sees the
// validator again, and once it does, dials it as soon as the 10 s throttle allows.
import { afterEach, describe, expect, it } from 'vitest';
import { aggregate, closeWorld, infoPeer, messageHex, startWorld, until } from './p2p-world.js';

afterEach(closeWorld);

describe('a validator that restarts', () => {
  it('is connected again soon after the upstream node sees it back, not when its grown backoff ends', async () => {
    const w = await startWorld({ seed: 'reconnect-after-restart' });
    await until('every validator connected', () => w.service.p2p!.connectedCount() === w.nodes.length);
    const node = w.nodes[3]!;
    const entry = infoPeer(node);

    // It stops: the upstream node no longer lists it, and warpgate's redials are refused.
    w.listed = w.listed.filter((p) => p.nodeId !== node.nodeId);
    await node.close();
    const failedDials = (): number => w.log.records.filter((r) => r.msg === 'p2p dial failed' && r.nodeId === node.nodeId).length;
    // After the second refusal its backoff puts the next redial 40-50 s away.
    await until('two refused redials', () => failedDials() >= 2, 60_000);

    // It is back, at its address, and the upstream node sees it.
    await node.start();
    w.listed = [...w.listed, entry];
    const backAt = Date.now();
    await until('the validator connected again', () => w.service.p2p!.isConnected(node.nodeId), 90_000);
    const tookMs = Date.now() - backAt;
    // Within one look at info.peers (every 10 s), the throttle then spent; its backoff would have taken 40 s or more.
    expect(tookMs).toBeLessThan(25_000);
    const after = await aggregate(w.service, messageHex(w, 'after the restart'));
    expect(after.status, JSON.stringify(after.body)).toBe(201);
  }, 180_000);
});
