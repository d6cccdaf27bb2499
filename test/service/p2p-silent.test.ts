// Silent drops explained: avalanchego answers nothing to a request for a chain it does not run
// (or is bootstrapping), nor to one for a validatorOnly subnet from a NodeID outside allowedNodes
// (snow/networking/router/chain_router.go). warpgate names the two patterns such drops leave, a
// connected validator that answers other chains but never this one, and one that answers nothing,
// with the likely reason and the remedy, in /ready, the status model, the log and the 503.
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/warp/hex.js';
import { newPChainMessage } from '../../src/warp/l1-messages.js';
import { cb58Encode } from '../../src/warp/cb58.js';
import { aggregate, closeWorld, messageHex, startWorld, until, type World } from './p2p-world.js';

afterEach(closeWorld);

const connectedAll = (w: World): Promise<void> => until('every avalanchego validator to be connected', () => w.service.p2p!.connectedCount() === w.nodes.length);
const FAST = { 'aggregation.requestTimeoutMs': 300, 'aggregation.deadlineMs': 1_000 };

async function json(url: string): Promise<Record<string, any>> {
  return (await fetch(url)).json() as Promise<Record<string, any>>;
}

/** The EVM chain asked until each validator left 3 requests in a row unanswered; the last 503's body. */
async function askUntilSilent(w: World): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  for (let i = 0; i < 3; i++) {
    const r = await aggregate(w.service, messageHex(w, `dropped ${i}`));
    expect(r.status).toBe(503);
    last = r.body;
  }
  return last;
}

describe('a connected validator that answers other chains but never this one', () => {
  it('is named with the likely reason and the remedy in the 503, /ready, the status model and the log', async () => {
    // No node runs the EVM chain: every request for it is dropped; the P-Chain answers.
    const w = await startWorld({ seed: 'silent-chain', runs: () => 'pchain', overrides: FAST });
    await connectedAll(w);
    const { weightChange, networkId, subnetId } = w.genesis;
    const stale = newPChainMessage(networkId, { type: 'L1ValidatorWeight', validationId: weightChange.validationId, nonce: weightChange.nonce - 1n, weight: weightChange.weight });
    expect((await aggregate(w.service, bytesToHex(stale.bytes), { signingSubnetId: cb58Encode(subnetId) })).status).toBe(503);
    const body = await askUntilSilent(w);
    expect(body.message).toMatch(/timed out 3/);
    expect(body.message).toMatch(/3 connected avalanchego validator\(s\) answer other chains but never this one \(it does not run that chain or is still bootstrapping it, or the chain's subnet is validatorOnly and warpgate's NodeID is not in its allowedNodes/);
    expect(body.message).toMatch(/remedy: pin warpgate's NodeID \(p2p.tlsCertFile and p2p.tlsKeyFile/);

    const ready = await json(`${w.service.url}/ready`);
    const silent = ready.peers.silent as Record<string, unknown>[];
    // 4 nodes, 3 validators: two nodes share a key and only one of them is asked.
    expect(silent.length).toBe(3);
    expect(new Set(silent.map((s) => s.pattern))).toEqual(new Set(['chain']));
    expect(silent[0]).toMatchObject({ chainId: cb58Encode(w.genesis.blockchainId), unansweredInARow: 3, reason: expect.stringMatching(/allowedNodes/), remedy: expect.stringMatching(/p2p.tlsCertFile/) });
    const status = await json(`${w.service.url}/status.json`);
    expect(status.peers.silent).toEqual(silent);
    const logged = w.log.records.filter((r) => r.msg === 'avalanchego validator drops requests without an answer');
    expect(logged.map((r) => r.nodeId).sort()).toEqual(silent.map((s) => s.nodeId).sort());
  });
});

describe('a connected validator that answers nothing at all', () => {
  it('is named as such in /ready and the 503', async () => {
    const w = await startWorld({ seed: 'silent-all', runs: () => 'none', overrides: FAST });
    await connectedAll(w);
    const body = await askUntilSilent(w);
    expect(body.message).toMatch(/3 connected avalanchego validator\(s\) have answered no request at all; remedy: check that the validator is bootstrapped/);
    const ready = await json(`${w.service.url}/ready`);
    const silent = ready.peers.silent as Record<string, unknown>[];
    expect(silent.length).toBe(3);
    expect(silent.every((s) => s.pattern === 'everything' && String(s.reason).includes('has answered no request at all'))).toBe(true);
  });
});
