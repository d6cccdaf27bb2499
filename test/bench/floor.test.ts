// The bench's `floor` strategy (bench/floor.ts): answers accepted as they arrive with no BLS pool
// work and no check, a final "check" with no pairing and no aggregate; and the harness reading its
// answers without the signature check they would fail, while every other strategy's answers are
// verified as avalanchego would.
import { describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS } from '../../bench/args.js';
import { floor } from '../../bench/floor.js';
import { BenchRunError, verifyAnswers } from '../../bench/harness.js';
import { buildScenario } from '../../bench/scenario.js';
import { SignatureLedger } from '../../src/aggregator/signature-ledger.js';
import type { BlsVerifier } from '../../src/bls-pool/verifier.js';
import { loadBackend } from '../../src/bls/index.js';
import { canonicalSet } from '../../src/validators/canonical-set.js';
import { encodeSigners } from '../../src/warp/bitset.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { encodeSignedMessage } from '../../src/warp/signed-message.js';
import { parseUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { Aggregator } from '../../src/aggregator/aggregator.js';
import type { ResponseResult } from '../../src/aggregator/collection.js';
import { SignatureCache } from '../../src/aggregator/signature-cache.js';
import { requiredWeight } from '../../src/validators/quorum.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { FakePeers, NETWORK_ID, fixedEpochs, fixedSets, message, testNetwork } from '../aggregator/helpers.js';

const bls = loadBackend('blst');
const options = { ...DEFAULT_OPTIONS, validators: 6, weights: 'skewed' as const, runs: 1, warmup: 0 };
const scenario = buildScenario(options);
const set = canonicalSet(
  scenario.validators.map((v) => ({ nodeId: v.nodeId, weight: v.weight, publicKey: hexToBytes(v.publicKeyHex) })),
  bls,
);
const unsigned = parseUnsignedMessage(hexToBytes(scenario.messagesHex[0]!));

/** A pool any call to which fails the test: the floor must not use it. */
const untouchablePool = new Proxy({} as BlsVerifier, {
  get: (_, name) => {
    throw new Error(`the floor used the BLS pool (${String(name)})`);
  },
});

/** What the floor would put in the message: the first signer's own signature. */
function signatureOf(index: number): Uint8Array {
  const v = scenario.validators.find((x) => x.publicKeyHex === set.validators[index]!.publicKeyHex)!;
  return bls.sign(bls.secretKeyFromBytes(hexToBytes(v.secretKeyHex)), unsigned.bytes).bytes;
}

describe('the floor strategy', () => {
  it('accepts every answer as it arrives, checked or not, and finishes with no pairing and no aggregate', async () => {
    const events: string[] = [];
    const ledger = new SignatureLedger(set, {
      invalid: (i) => events.push(`invalid ${i}`),
      proven: (i) => events.push(`proven ${i}`),
      checkDone: () => events.push('checkDone'),
      checkFailed: (err) => events.push(`failed ${String(err)}`),
    });
    const v = floor({ message: unsigned.bytes, set, targetWeight: set.totalWeight, minimizeSigners: true, pool: untouchablePool, ledger });
    // Not even a G2 point: the floor makes no check, so it takes it as it takes a real one.
    const garbage = new Uint8Array(96).fill(7);
    ledger.add(4, signatureOf(4));
    ledger.add(1, garbage);
    expect(v.readyWeight).toBe(0n);
    v.startChecks(false);
    // Accepted at once, inside startChecks: no worker round trip.
    expect(v.readyWeight).toBe(set.validators[4]!.weight + set.validators[1]!.weight);
    expect(v.readySigners).toBe(2);
    expect(v.unproven).toBe(false);
    expect(events.filter((e) => e.startsWith('proven')).sort()).toEqual(['proven 1', 'proven 4']);
    // The ledger's own bookkeeping runs as for a real check: its checkDone event follows.
    await Promise.resolve();
    await Promise.resolve();
    expect(events).toContain('checkDone');
    expect(ledger.idle).toBe(true);

    ledger.add(0, signatureOf(0));
    v.startChecks(false);
    const check = await v.finalCheck();
    expect(check).toEqual({
      valid: true,
      signers: [0, 1, 4],
      // The first signer's own signature stands for the aggregate: well-formed, not valid for three signers.
      signature: signatureOf(0),
      weight: set.validators[0]!.weight + set.validators[1]!.weight + set.validators[4]!.weight,
      checked: [0, 1, 4],
      leftOut: 0,
    });
    expect(events.some((e) => e.startsWith('invalid') || e.startsWith('failed'))).toBe(false);
  });
});

describe('the after-run verification', () => {
  const all = set.validators.map((_, i) => i);
  const floorAnswer = bytesToHex(encodeSignedMessage(unsigned, encodeSigners(all), signatureOf(0)));
  const outcome = { message: 0, latencyMs: 10, status: 201, signedMessageHex: floorAnswer };

  it('skips the signature check for floor and reads its signers and weight', () => {
    const checked = verifyAnswers('floor', scenario, [outcome], options);
    expect(checked.get(0)).toMatchObject({ signers: 6, signedWeightPercent: 100 });
  });

  it('verifies every other strategy as avalanchego would: the same answer fails there', () => {
    for (const strategy of ['warpgate', 'warpgateAllSigners', 'perSignatureVerify'] as const) {
      expect(() => verifyAnswers(strategy, scenario, [outcome], options)).toThrow(BenchRunError);
      expect(() => verifyAnswers(strategy, scenario, [outcome], options)).toThrow(/does not verify/);
    }
  });

  it('still refuses a floor answer whose signers do not hold quorum weight', () => {
    const lightest = all.reduce((a, i) => (set.validators[i]!.weight < set.validators[a]!.weight ? i : a), 0);
    const short = bytesToHex(encodeSignedMessage(unsigned, encodeSigners([lightest]), signatureOf(lightest)));
    expect(() => verifyAnswers('floor', scenario, [{ ...outcome, signedMessageHex: short }], options)).toThrow(/not 67%/);
  });
});

describe('the floor through the real aggregator', () => {
  it('takes the same fan-out and early stop, counts the answers, and never touches the BLS pool', async () => {
    // 16 validators of uneven weight: the 8 heaviest (175 of 240) answer at once, the rest after 3 s.
    const net = testNetwork([40, 30, 25, 20, 18, 16, 14, 12, 10, 9, 8, 7, 6, 5, 4, 3], 0);
    const slow = net.validators.filter((v) => v.weight < 12n);
    const peers = new FakePeers(net);
    for (const v of slow) peers.set(v.pkHex, { kind: 'honest', delayMs: 3_000 });
    const responses: ResponseResult[] = [];
    const agg = new Aggregator({
      sets: fixedSets(net),
      epochs: fixedEpochs(),
      peers,
      pool: untouchablePool,
      cache: new SignatureCache(),
      deadlineMs: 5_000,
      requestTimeoutMs: 4_000,
      verification: floor,
      fanOut: { extraWeightPercent: 100 },
      events: { onResponse: (r) => responses.push(r) },
    });
    const result = await agg.aggregate({ message: message('floor'), justification: new Uint8Array(), quorumPercentage: 67, quorumPercentageBuffer: 0, pChainHeight: 0 });
    // Answered while every slow validator still held its request; they are cancelled after the answer.
    for (const v of slow) expect(peers.settled).not.toContain(v.pkHex);
    expect(peers.requests).toHaveLength(16);
    await new Promise((resolve) => setImmediate(resolve));
    expect(peers.aborted).toBe(slow.length);
    expect(result.signedWeight).toBeGreaterThanOrEqual(requiredWeight(240n, 67));
    // The arrival completing the target decides at once: the 7 heaviest (163 of 240) reach 67%
    // (161), so the 8th fast answer is not waited for.
    expect(result.signers).toHaveLength(7);
    expect(responses.filter((r) => r === 'valid')).toHaveLength(7);
    // Not a usable answer: the message's "aggregate" is one signer's signature.
    const v = verifySignedMessage(result.signedMessage, net.entries, 67, NETWORK_ID, bls);
    expect(v.valid).toBe(false);
    expect(v.reason).toMatch(/does not verify/);
    expect(v.signedWeight).toBe(result.signedWeight);
  });
});
