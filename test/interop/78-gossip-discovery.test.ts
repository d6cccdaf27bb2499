// Discovery by gossip: warpgate with info.peers discovery off (p2p.infoPeers false, as where a
// provider hides info.peers) and one configured Primary Network peer. It claims the L1 as tracked
// in its Handshake, so the node's PeerList gossip names the L1's validators
// (network/ip_tracker.go, network.go Peers); every running L1 validator is found and connected,
// and the L1 signs. The time from warpgate's start to the last L1 validator connected is printed.
import { describe, expect, inject, it } from 'vitest';
import { bytesToHex, encodeHashPayload, hexToBytes, newUnsignedMessage, parseCb58Id } from '../../src/warp/index.js';
import { postJson, waitFor } from '../ops/helpers.js';
import { warpgateConnectedTo } from './faults.js';
import { avalancheVerdict, rpc, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
const seed = net.nodes[1]!;
const startedAt = Date.now();
const warpgate = warpgateForThisFile(net, { p2p: { enabled: true, infoPeers: false, peers: [{ nodeId: seed.nodeId, address: seed.stakingAddress }] } });

describe('discovery by gossip, without info.peers', () => {
  it('finds every L1 validator from one configured Primary Network peer, and the L1 signs', async () => {
    const l1 = net.l1.validators.map((v) => v.nodeId);
    await waitFor('every L1 validator connected', async () => ((await warpgateConnectedTo(warpgate.url, l1)).size === l1.length ? true : undefined), 120_000, 200);
    const tookS = (Date.now() - startedAt) / 1000;
    process.stderr.write(`interop 78: every L1 validator found by gossip and connected ${tookS.toFixed(1)} s after warpgate was started\n`);

    const block = await rpc<{ hash: string }>(net.l1.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
    const message = bytesToHex(newUnsignedMessage(net.networkId, parseCb58Id(net.l1.blockchainId), encodeHashPayload(hexToBytes(block.hash))).bytes);
    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message, quorumPercentage: 90 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const verdict = avalancheVerdict(net, res.body.signedMessage, Number(res.headers.get('x-warpgate-pchain-height')), { quorum: 90 });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: net.l1.subnetId, signers: 3 });
  });
});
