// L1 validators stopped: the L1 was converted with weights 40/10/10 (and `40` registered a
// fourth validator of weight 2 that no node runs). With one light validator stopped, the heavy
// one and the other light one still reach 67%: signed. With both light ones stopped, the heavy
// one alone (40 of 60, or of 62) is short of it: 503, with the counts of what happened to each
// validator. Both are started again afterwards, so the files after this one see the whole L1.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bytesToHex, encodeHashPayload, hexToBytes, newUnsignedMessage, parseCb58Id } from '../../src/warp/index.js';
import { postJson, waitFor } from '../ops/helpers.js';
import { sendTransaction } from './evm.js';
import { nodeAction, warpgateConnectedTo } from './faults.js';
import { acceptedEverywhere, avalancheVerdict, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
const warpgate = warpgateForThisFile(net);
const heavy = net.l1.validators.find((v) => v.weight === 40)!;
const [lightA, lightB] = net.l1.validators.filter((v) => v.weight === 10) as [(typeof net.l1.validators)[0], (typeof net.l1.validators)[0]];
const stopped = new Set<string>();

/**
 * Messages of the L1's chain, one per test: the hashes of three blocks made for this file (a
 * message signed before would come from the signature cache, whoever is stopped now).
 */
const messages: string[] = [];
beforeAll(async () => {
  const key = net.funded[net.funded.length - 1]!;
  for (let i = 0; i < 3; i++) {
    const receipt = await sendTransaction(`${heavy.uri}/ext/bc/${net.l1.blockchainId}/rpc`, net.l1.evmChainId, key, { to: key.address, data: '0x' });
    await acceptedEverywhere(net, net.l1.blockchainId, BigInt(receipt.blockNumber));
    messages.push(bytesToHex(newUnsignedMessage(net.networkId, parseCb58Id(net.l1.blockchainId), encodeHashPayload(hexToBytes(receipt.blockHash))).bytes));
  }
}, 5 * 60_000);

function stop(nodeId: string): void {
  stopped.add(nodeId);
  nodeAction(net, 'stop', nodeId);
}

afterAll(async () => {
  for (const nodeId of stopped) nodeAction(net, 'start', nodeId);
  stopped.clear();
});

describe('L1 validators stopped', () => {
  it('one light validator stopped: quorum from the rest, and avalanchego accepts it', async () => {
    stop(lightA.nodeId);
    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: messages[0] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const verdict = avalancheVerdict(net, res.body.signedMessage, Number(res.headers.get('x-warpgate-pchain-height')));
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: net.l1.subnetId, signers: 2, signedWeight: 50 });
    expect(verdict.signerNodeIds.sort()).toEqual([heavy.nodeId, lightB.nodeId].sort());
  });

  it('both light validators stopped (below quorum): 503 with the counts', async () => {
    stop(lightB.nodeId);
    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: messages[1] });
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    const text = JSON.stringify(res.body);
    // The heavy validator alone signed; every other validator of the set is not connected.
    const counts = /quorum not reached [^:]*: signed weight (\d+) of (\d+) \([\d.]+%\), required (\d+); validators (\d+): asked (\d+), answered (\d+), refused \d+, timed out \d+, invalid signatures \d+, failed \d+, not connected (\d+)/.exec(text);
    expect(counts, text).not.toBeNull();
    const [, signed, total, required, validators, asked, answered, notConnected] = counts!.map(Number) as number[];
    expect({ signed, asked, answered }).toEqual({ signed: 40, asked: 1, answered: 1 });
    expect(notConnected).toBe(validators! - 1);
    expect(required).toBe(Math.ceil((total! * 67) / 100));
  });

  it('both started again: warpgate connects to them again and the L1 signs with all three (90% needs them all)', async () => {
    for (const nodeId of [...stopped]) {
      nodeAction(net, 'start', nodeId);
      stopped.delete(nodeId);
    }
    const all = net.l1.validators.map((v) => v.nodeId);
    await waitFor('warpgate connected to every L1 validator again', async () => ((await warpgateConnectedTo(warpgate.url, all)).size === all.length ? true : undefined), 90_000, 500);
    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: messages[2], quorumPercentage: 90 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const verdict = avalancheVerdict(net, res.body.signedMessage, Number(res.headers.get('x-warpgate-pchain-height')), { quorum: 90 });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, signers: 3 });
  }, 5 * 60_000);
});
