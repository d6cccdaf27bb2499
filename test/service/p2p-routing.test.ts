// One peer source over both transports, against real TLS avalanchego nodes and real WebSocket
// signers: a validator reachable both ways is asked once (its signer first), AppErrors are
// refusals counted like a signer's with their code in metrics and logs, an invalid signature
// penalizes the p2p peer that sent it, and faulty p2p validators never stall an aggregation.
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/warp/hex.js';
import { newPChainMessage } from '../../src/warp/l1-messages.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { cb58Encode } from '../../src/warp/cb58.js';
import { scrape } from '../ops/helpers.js';
import { aggregate, closeWorld, messageHex, startWorld, until, verifiesIndependently, type World } from './p2p-world.js';

afterEach(closeWorld);

const connectedAll = (w: World): Promise<void> => until('every avalanchego validator to be connected', () => w.service.p2p!.connectedCount() === w.nodes.length);

/** Requests a simulated node received, answered or not. */
const askedOf = (w: World, i: number): number => {
  const s = w.nodes[i]!.stats();
  return s.answered + s.refused + s.dropped;
};

describe('a validator reachable both ways', () => {
  it('is asked once, over its signer while that is connected, then over p2p; so is a merged validator (two NodeIDs, one key)', async () => {
    // Validator 3 also runs a signer; validators 1 and 2 share a key.
    const w = await startWorld({ seed: 'asked-once', signers: [3] });
    await connectedAll(w);
    await until('the signer to be connected', () => w.service.peers.connectedKeys().length === 1);
    const before = await scrape(w.service.url);
    expect((await aggregate(w.service, messageHex(w, 'both ways 1'))).status).toBe(201);
    // Every validator is asked at once (fanOutExtraPercent 100): v0 and the merged v1/v2 over p2p, v3 over its signer.
    await until('the answers to be counted', async () => (await scrape(w.service.url)).sum('warpgate_peer_requests_total') - before.sum('warpgate_peer_requests_total') === 3);
    const after = await scrape(w.service.url);
    const delta = (transport: string): number => after.sum('warpgate_peer_requests_total', { transport }) - before.sum('warpgate_peer_requests_total', { transport });
    expect(delta('ws')).toBe(1);
    expect(delta('p2p')).toBe(2);
    expect(askedOf(w, 3)).toBe(0);
    expect(askedOf(w, 1) + askedOf(w, 2)).toBe(1);

    // Without its signer, the validator is asked over p2p, still once.
    await w.signers.get(3)!.peer.close();
    await until('the signer to be gone', () => w.service.peers.connectedKeys().length === 0);
    expect((await aggregate(w.service, messageHex(w, 'both ways 2'))).status).toBe(201);
    await until('validator 3 to be asked over p2p', () => askedOf(w, 3) === 1);
    expect(askedOf(w, 1) + askedOf(w, 2)).toBe(2);
    const last = await scrape(w.service.url);
    expect(last.sum('warpgate_peer_requests_total', { transport: 'ws' })).toBe(after.sum('warpgate_peer_requests_total', { transport: 'ws' }));
  });
});

describe('AppErrors', () => {
  it('are refusals counted as a signer’s, with the code in the 503, the metrics and the logs', async () => {
    const w = await startWorld({ seed: 'app-errors' });
    await connectedAll(w);
    // From the EVM chain, on its network, but a payload the EVM verifier cannot parse: code 1.
    const garbled = bytesToHex(newUnsignedMessage(w.genesis.networkId, w.genesis.blockchainId, Uint8Array.of(0, 0, 0, 0, 0, 9)).bytes);
    const before = await scrape(w.service.url);
    const evm = await aggregate(w.service, garbled);
    expect(evm.status).toBe(503);
    expect(evm.body.message).toMatch(/asked 3, answered 0, refused 3, timed out 0/);
    // The P-Chain's verifier: a weight message with a stale nonce is code 16.
    const { weightChange, networkId, subnetId } = w.genesis;
    const stale = newPChainMessage(networkId, { type: 'L1ValidatorWeight', validationId: weightChange.validationId, nonce: weightChange.nonce - 1n, weight: weightChange.weight });
    const pchain = await aggregate(w.service, bytesToHex(stale.bytes), { signingSubnetId: cb58Encode(subnetId) });
    expect(pchain.status).toBe(503);
    expect(pchain.body.message).toMatch(/refused 3/);
    const m = await scrape(w.service.url);
    const delta = (name: string, labels: Record<string, string>): number => m.sum(name, labels) - before.sum(name, labels);
    expect(delta('warpgate_p2p_app_errors_total', { code: 'evm-1' })).toBe(3);
    expect(delta('warpgate_p2p_app_errors_total', { code: 'pchain-16' })).toBe(3);
    expect(delta('warpgate_signature_responses_total', { result: 'refused' })).toBe(6);
    expect(delta('warpgate_peer_requests_total', { transport: 'p2p', outcome: 'refused' })).toBe(6);
    const logged = w.log.records.filter((r) => r.msg === 'avalanchego validator refused to sign');
    expect(logged.map((r) => r.appError).sort()).toEqual(['evm-1', 'evm-1', 'evm-1', 'pchain-16', 'pchain-16', 'pchain-16']);
    expect(logged.find((r) => r.code === 16)!.reason).toMatch(/provided nonce \d+ != expected nonce/);
  });
});

describe('penalties', () => {
  // p2p.ioShards 2: the same with the connections in two worker threads (the strike reaches the shard holding the NodeID).
  it.each([0, 2])('an invalid signature over p2p strikes the NodeID that sent it; at the threshold it is dropped for the cooldown (p2p.ioShards %i)', async (ioShards) => {
    const w = await startWorld({ seed: 'penalties', faults: { 3: 'invalid-signature' }, overrides: { 'p2p.penaltyThreshold': 1, 'p2p.ioShards': ioShards } });
    await connectedAll(w);
    const bad = w.nodes[3]!.nodeId;
    // Quorum 100 cannot be met (the keyless weight never signs): every answer is checked before the 503.
    const { status, body } = await aggregate(w.service, messageHex(w, 'one of them lies'), { quorumPercentage: 100 });
    expect(status).toBe(503);
    expect(body.message).toMatch(/invalid signatures 1,/);
    await until('the liar to be dropped', () => !w.service.p2p!.isConnected(bad));
    const penalized = w.log.records.find((r) => r.msg === 'p2p peer penalized, disconnecting it for a cooldown');
    expect(penalized).toMatchObject({ nodeId: bad, banned: true });
    // The honest ones stay (the cooldown's redial rule: test/p2p/faults.test.ts).
    expect(w.service.p2p!.connectedCount()).toBe(3);
    const m = await scrape(w.service.url);
    expect(m.sum('warpgate_signature_responses_total', { result: 'invalid' })).toBe(1);
  });
});

describe('faulty avalanchego validators never stall an aggregation', () => {
  it.each([0, 2])('garbage, silence and a dropped connection: the honest quorum answers, without waiting out the silent one (p2p.ioShards %i)', async (ioShards) => {
    // The request timeout and deadline are far beyond the test's own wait (25 s): a stall fails the test.
    // The honest validators sign once the faulty ones have acted on their requests, so that the
    // garbage and the dropped connection reach the service before a quorum can end the aggregation
    // (and cancel what is still outstanding).
    let faultsActed!: () => void;
    const w = await startWorld({
      seed: 'faults',
      validators: 8,
      faults: { 5: 'garbage', 6: 'silent', 7: 'disconnect' },
      signAfter: new Promise<void>((resolve) => (faultsActed = resolve)),
      overrides: { 'aggregation.deadlineMs': 60_000, 'aggregation.requestTimeoutMs': 60_000, 'p2p.ioShards': ioShards },
    });
    await connectedAll(w);
    const faulty = [5, 6, 7].map((i) => w.genesis.validators[i]!.weight).reduce((a, b) => a + b, 0n);
    // The test's premise: the honest validators hold the quorum.
    expect((w.genesis.totalWeight - w.genesis.keylessWeight - faulty) * 100n >= w.genesis.totalWeight * 67n).toBe(true);
    const before = await scrape(w.service.url);
    const answer = aggregate(w.service, messageHex(w, 'despite the faulty'));
    await until('the faulty validators to have acted on their requests', () => [5, 6, 7].every((i) => w.nodes[i]!.stats().answered >= 1));
    faultsActed();
    const { status, body } = await answer;
    expect(status).toBe(201);
    await verifiesIndependently(w, body.signedMessage);
    // The garbage answer is a protocol fault (disconnected, struck), the dropped connection a failure.
    await until('both failures to be counted', async () => {
      const m = await scrape(w.service.url);
      return m.sum('warpgate_peer_requests_total', { transport: 'p2p', outcome: 'failed' }) - before.sum('warpgate_peer_requests_total', { transport: 'p2p', outcome: 'failed' }) === 2;
    });
    expect(w.log.records.some((r) => r.msg === 'p2p peer penalized' && r.nodeId === w.nodes[5]!.nodeId)).toBe(true);
    // The silent one's request was cancelled when the aggregation ended, not timed out.
    await until('the silent request to be cancelled', async () => (await scrape(w.service.url)).sum('warpgate_peer_requests_total', { transport: 'p2p', outcome: 'cancelled' }) >= 1);
    expect((await scrape(w.service.url)).sum('warpgate_peer_requests_total', { outcome: 'timeout' })).toBe(0);
  });
});
