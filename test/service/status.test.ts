// The status model on its own, over fake parts: the heaviest validators up to its bound with the
// stake they connect, a subnet whose set is not held shown with why (nothing is read for it),
// subnets of recent aggregations beside the tracked ones, the recent list's bound, and one look
// shared by everyone who asks within refreshMs.
import { describe, expect, it } from 'vitest';
import { AnswerTracker } from '../../src/service/answer-tracker.js';
import { StatusModel } from '../../src/service/status.js';
import type { CanonicalSet } from '../../src/validators/canonical-set.js';
import { idToString } from '../../src/warp/cb58.js';

const SUBNET_A = idToString(new Uint8Array(32).fill(1));
const SUBNET_B = new Uint8Array(32).fill(2);

/** A set with the given weights; validator i has key 'k<i>' and node ID 'NodeID-<i>'. */
function setOf(weights: bigint[], keyless = 0n): CanonicalSet {
  const validators = weights.map((weight, i) => ({ publicKeyHex: `k${i}`, weight, nodeIds: [`NodeID-${i}`], publicKey: null as never }));
  return { validators, totalWeight: weights.reduce((a, w) => a + w, keyless), indexOf: () => undefined };
}

function model(opts: { sets: (subnet: string) => CanonicalSet | undefined; connected: string[]; validatorsPerSubnet?: number; maxRecent?: number; refreshMs?: number }): StatusModel {
  const m = new StatusModel({
    version: '9.9.9',
    refreshMs: opts.refreshMs ?? 0,
    maxRecent: opts.maxRecent ?? 10,
    validatorsPerSubnet: opts.validatorsPerSubnet ?? 10,
    trackedSubnets: [SUBNET_A],
    quorumPercentage: 67,
  });
  m.readLiveFrom({
    readiness: async () => ({ ready: true, reasons: [] }),
    heldSet: (id) => opts.sets(idToString(id)),
    transports: [{ name: 'websocket', connectedCount: () => opts.connected.length, isConnected: (v) => opts.connected.includes(v.publicKeyHex) }],
    answers: new AnswerTracker(10),
    aggregationsInFlight: () => 0,
    cache: () => ({ messages: 0, signatures: 0, maxMessages: 1, maxSignatures: 1 }),
    workers: () => ({ threads: 1, queued: 0, maxQueue: 16 }),
  });
  return m;
}

describe('StatusModel', () => {
  it('lists the heaviest validators up to its bound, and the stake every connected one holds', async () => {
    const m = model({ sets: () => setOf([10n, 40n, 20n, 30n], 100n), connected: ['k1', 'k2'], validatorsPerSubnet: 2 });
    const [subnet] = (await m.report()).subnets;
    expect(subnet!.validators.map((v) => [v.publicKey, v.weight, v.weightPercent, v.transport])).toEqual([
      ['k1', '40', 20, 'websocket'],
      ['k3', '30', 15, null],
    ]);
    // Stake counts every connected validator, listed or not; keyless weight is in the total.
    expect(subnet).toMatchObject({ totalWeight: '200', connectedWeight: '60', connectedPercent: 30, validatorCount: 4, connectedCount: 2, tracked: true });
  });

  it('shows a subnet whose set the service does not hold with why, and the set once it is held', async () => {
    let held: CanonicalSet | undefined;
    const m = model({ sets: () => held, connected: ['k0'] });
    expect((await m.report()).subnets[0]).toEqual({ subnetId: SUBNET_A, tracked: true, quorumPercentage: 67, error: 'the service holds no validator set of this subnet now (the page reads none)', validators: [] });
    held = setOf([5n, 5n]);
    const [subnet] = (await m.report()).subnets;
    expect(subnet).not.toHaveProperty('error');
    expect(subnet).toMatchObject({ totalWeight: '10', connectedPercent: 50 });
  });

  it('shows the subnets of recent aggregations after the tracked ones, and keeps only the newest aggregations', async () => {
    const m = model({ sets: () => setOf([1n]), connected: [], maxRecent: 2 });
    const event = { outcome: 'success' as const, ms: 9, subnetId: SUBNET_B, signedWeight: 1n, totalWeight: 1n, signers: 1, idealMs: 4 };
    m.aggregatorEvents.onAggregation(event);
    m.aggregatorEvents.onAggregation({ outcome: 'error', ms: 3, error: 'DeadlineExceededError' });
    m.aggregatorEvents.onAggregation({ ...event, ms: 7 });
    const report = await m.report();
    expect(report.aggregations.total).toBe(3);
    expect(report.aggregations.recent.map((a) => [a.outcome, a.ms, a.idealMs, a.error])).toEqual([
      ['success', 7, 4, null],
      ['error', 3, null, 'DeadlineExceededError'],
    ]);
    expect(report.subnets.map((s) => [s.subnetId, s.tracked])).toEqual([
      [SUBNET_A, true],
      [idToString(SUBNET_B), false],
    ]);
  });

  it('answers everyone who asks within refreshMs from one look', async () => {
    let reads = 0;
    const m = model({
      sets: () => {
        reads++;
        return setOf([1n]);
      },
      connected: [],
      refreshMs: 60_000,
    });
    const [a, b] = await Promise.all([m.report(), m.report()]);
    const c = await m.report();
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(reads).toBe(1);
  });
});
