// A request for a chain the asked nodes do not run: the L1's message, asked of the Primary
// Network's validators (signingSubnetId = the Primary Network), which do not track the L1. A real
// avalanchego drops such a request without any answer (snow/networking/router/chain_router.go),
// so warpgate sees timeouts only. Once they answered the C-Chain, three unanswered requests in a
// row name the pattern (service/silent-validators.ts): the 503, /ready and the status page say
// that they answer other chains but never this one, why, and what to do; each answer comes
// within the aggregation's deadline.
import { describe, expect, inject, it } from 'vitest';
import { bytesToHex, encodeHashPayload, hexToBytes, newUnsignedMessage, parseCb58Id } from '../../src/warp/index.js';
import { postJson, request } from '../ops/helpers.js';
import { PRIMARY_NETWORK_ID, rpc, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
const DEADLINE_MS = 6_000;
const warpgate = warpgateForThisFile(net, { aggregation: { requestTimeoutMs: 2_000, deadlineMs: DEADLINE_MS } });
const primary = net.nodes.map((n) => n.nodeId);

async function blockMessage(rpcUrl: string, blockchainId: string): Promise<string> {
  const block = await rpc<{ hash: string }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
  return bytesToHex(newUnsignedMessage(net.networkId, parseCb58Id(blockchainId), encodeHashPayload(hexToBytes(block.hash))).bytes);
}

describe('a request for a chain the asked nodes do not run', () => {
  it('is explained as a silent drop, with the remedy, in the 503, /ready and the status page, within the deadline', async () => {
    const aggregate = `${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`;
    // They answer the C-Chain.
    const signed = await postJson(aggregate, { message: await blockMessage(net.cChain.rpcUrl, net.cChain.blockchainId) });
    expect(signed.status, JSON.stringify(signed.body)).toBe(201);

    const l1Message = await blockMessage(`${net.l1.validators[0]!.uri}/ext/bc/${net.l1.blockchainId}/rpc`, net.l1.blockchainId);
    let last;
    for (let i = 1; i <= 3; i++) {
      const began = Date.now();
      last = await postJson(aggregate, { message: l1Message, signingSubnetId: PRIMARY_NETWORK_ID });
      const tookMs = Date.now() - began;
      expect(last.status, JSON.stringify(last.body)).toBe(503);
      // Within the deadline (and its answer's own time on a loaded machine), not a 504.
      expect(tookMs).toBeLessThan(DEADLINE_MS + 2_000);
      expect(JSON.stringify(last.body)).toMatch(/validators 4: asked 4, answered 0, refused 0, timed out 4/);
    }
    const text = JSON.stringify(last!.body);
    expect(text).toContain('4 connected avalanchego validator(s) answer other chains but never this one');
    expect(text).toContain('does not run that chain or is still bootstrapping it');
    expect(text).toContain('remedy:');

    const ready = await request(`${warpgate.url}/ready`);
    const silent = ready.body.peers.silent as { nodeId: string; pattern: string; chainId: string; reason: string; remedy: string }[];
    expect(silent.map((s) => s.nodeId).sort(), JSON.stringify(silent)).toEqual([...primary].sort());
    for (const s of silent) expect(s).toMatchObject({ pattern: 'chain', chainId: net.l1.blockchainId });
    const status = await request(`${warpgate.url}/status.json`);
    expect(status.body.peers.silent).toHaveLength(4);
  });
});
