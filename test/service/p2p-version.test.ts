// The version warpgate claims, and what it says when nodes close right after its Handshake.
// avalanchego closes, without a reason, a connection whose Handshake claims a version below its
// minimum or a clock more than 60 s off (version/compatibility.go, network/peer/peer.go).
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { parseVersion } from '../../src/p2p/index.js';
import { CapturedLog } from '../ops/helpers.js';
import type { Handshake } from '../../src/p2p/index.js';
import { closeAll, once, startNetwork, startRawPeer } from '../p2p/helpers.js';
import { closeWorld, startWorld, until } from './p2p-world.js';

afterEach(async () => {
  await closeWorld();
  await closeAll();
});

const V1_16 = parseVersion('avalanchego/1.16.0');

describe('the version claim', () => {
  it('claims the upstream node’s own version when it is newer than p2p.version: nodes that raised their minimum accept it', async () => {
    // Every node runs 1.16.0 and refuses anything older; p2p.version stays at its 1.15.0 default.
    const w = await startWorld({ seed: 'version-claim', nodeVersion: V1_16 });
    await until('every avalanchego validator to be connected', () => w.service.p2p!.connectedCount() === w.nodes.length);
    const claimed = w.log.records.find((r) => r.msg === 'p2p: claiming the upstream node’s version, newer than p2p.version');
    expect(claimed).toMatchObject({ configured: 'avalanchego/1.15.0', claimed: 'avalanchego/1.16.0' });
  });
});

describe('closed right after our Handshake', () => {
  /** A node as avalanchego is one: it sends its Handshake at once, reads ours, refuses it and closes without a word. */
  async function closedLog(alter: (hs: Handshake) => void): Promise<Record<string, unknown>> {
    const peer = await startRawPeer((s) => {
      const hs = s.handshake();
      alter(hs);
      s.send({ case: 'handshake', value: hs });
      // end(), not destroy(): what it wrote goes out first, as a Go node's completed writes have.
      void s.next('handshake').then(() => s.socket.end());
    });
    const log = new CapturedLog();
    const net = await startNetwork({ logger: pino({ level: 'debug' }, log) });
    const failed = once(net, 'dialFailed');
    net.addTargets([{ nodeId: peer.nodeId, host: peer.host, port: peer.port }]);
    await failed;
    const record = log.records.find((r) => r.msg === 'closed right after our Handshake: check version and clock');
    expect(record, JSON.stringify(log.records.map((r) => r.msg))).toBeDefined();
    return record!;
  }

  it('by a node that requires a newer version: logged with both versions and the clock offset', async () => {
    const record = await closedLog((hs) => (hs.client = { ...hs.client!, minor: 16 }));
    expect(record).toMatchObject({ ourVersion: 'avalanchego/1.15.0', peerVersion: 'avalanchego/1.16.0' });
    expect(Math.abs(record.clockOffsetS as number)).toBeLessThanOrEqual(2);
  });

  it('by a node whose clock is 40 s ahead: the offset says so', async () => {
    const record = await closedLog((hs) => (hs.myTime += 40n));
    expect(record).toMatchObject({ ourVersion: 'avalanchego/1.15.0', peerVersion: 'avalanchego/1.15.0' });
    expect(record.clockOffsetS).toBeGreaterThanOrEqual(38);
    expect(record.clockOffsetS).toBeLessThanOrEqual(42);
  });
});
