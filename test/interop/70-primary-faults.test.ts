// A Primary Network validator that dies in the middle of an aggregation, and the same validator
// started again. Four validators of equal weight: any three reach 67%.
//
// Stopped mid-aggregation: two validators are frozen (SIGSTOP: connected, asked, answering
// nothing), so the request cannot reach quorum with the two others; while it waits, one frozen
// validator is killed (its connection closes under the outstanding request) and the other
// thawed. The answer is signed by the three left, and avalanchego's verifier accepts it.
//
// Restarted: the killed validator is down for a while (an operator's restart, an upgrade), then
// started again on its address; warpgate must connect to it and get its signature within 30 s
// of its restart. Asked with quorumPercentage 100, a 201 needs all four, the restarted one
// included. (avalanchego throttles inbound connection upgrades to one per IP per 10 s, but exempts
// loopback, so that rule cannot be seen on this network.)
import { afterAll, describe, expect, inject, it } from 'vitest';
import { bytesToHex, encodeHashPayload, hexToBytes, newUnsignedMessage, parseCb58Id } from '../../src/warp/index.js';
import { postJson } from '../ops/helpers.js';
import { crash, freeze, nodeAction, thaw, warpgateConnectedTo } from './faults.js';
import { avalancheVerdict, PRIMARY_NETWORK_ID, rpc, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
// Long enough for a validator frozen a few seconds to answer within its request's time.
const warpgate = warpgateForThisFile(net, { aggregation: { requestTimeoutMs: 9_000, deadlineMs: 20_000 } });
const [, , frozen, victim] = net.nodes.map((n) => n.nodeId) as [string, string, string, string];
/** How long the victim stays down before its restart: an operator's restart, longer than warpgate's first redials. */
const DOWN_MS = 45_000;

async function cChainBlockMessage(): Promise<string> {
  const block = await rpc<{ hash: string }>(net.cChain.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
  return bytesToHex(newUnsignedMessage(net.networkId, parseCb58Id(net.cChain.blockchainId), encodeHashPayload(hexToBytes(block.hash))).bytes);
}

let victimDown = false;
afterAll(() => {
  // Leave the network whole for the files after this one, whatever failed here.
  try {
    thaw(net, frozen);
  } catch {
    /* not frozen */
  }
  if (victimDown) nodeAction(net, 'start', victim);
});

describe('a Primary Network validator stopped mid-aggregation', () => {
  let diedAt = 0;

  it('is signed by the rest, and avalanchego accepts it', async () => {
    const message = await cChainBlockMessage();
    freeze(net, frozen);
    freeze(net, victim);
    const answer = postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message });
    // The request is out to all four; two of them cannot answer.
    await new Promise((r) => setTimeout(r, 1_500));
    victimDown = true;
    await crash(net, victim);
    diedAt = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    thaw(net, frozen);
    const res = await answer;
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const verdict = avalancheVerdict(net, res.body.signedMessage, Number(res.headers.get('x-warpgate-pchain-height')));
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: PRIMARY_NETWORK_ID, signers: 3 });
    expect(verdict.signerNodeIds).not.toContain(victim);
    expect(verdict.signerNodeIds).toContain(frozen);
  });

  it('signs with it again within 30 s of its restart', async () => {
    // Down as long as an operator's restart takes; meanwhile warpgate's redials fail.
    await new Promise((r) => setTimeout(r, Math.max(0, diedAt + DOWN_MS - Date.now())));
    const started = nodeAction(net, 'start', victim);
    victimDown = false;
    const restartedAt = Date.now();
    let res: Awaited<ReturnType<typeof postJson>> | undefined;
    for (;;) {
      // quorumPercentage 100: a 201 needs every validator, the restarted one included.
      try {
        res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: await cChainBlockMessage(), quorumPercentage: 100 });
      } catch {
        // A kept-alive connection closed while spawnSync blocked this process: ask again.
      }
      if (res?.status === 201 || Date.now() - restartedAt > 90_000) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const tookS = (Date.now() - restartedAt) / 1000;
    process.stderr.write(`interop 70: node start ${started.seconds.toFixed(1)} s; signed with the restarted validator ${tookS.toFixed(1)} s after it was healthy\n`);
    expect(res?.status, JSON.stringify(res?.body)).toBe(201);
    expect(tookS).toBeLessThanOrEqual(30);
    const verdict = avalancheVerdict(net, res!.body.signedMessage, Number(res!.headers.get('x-warpgate-pchain-height')), { quorum: 100 });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, signers: 4 });
    expect(verdict.signerNodeIds).toContain(victim);
    expect(await warpgateConnectedTo(warpgate.url, [victim])).toEqual(new Set([victim]));
  }, 5 * 60_000);
});
