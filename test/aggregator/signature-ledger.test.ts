// The books of a collection's signatures, on their own: which waiting signatures a check takes
// (heaviest first, only what the target needs, one batch per free slot), what counts as in hand,
// and what is proven and cached.
import { describe, expect, it } from 'vitest';
import { SignatureLedger, type Arrival, type LedgerEvents } from '../../src/aggregator/signature-ledger.js';
import { testNetwork } from './helpers.js';

// Canonical order is by key, so the weights sit at unknown indices: look them up.
const net = testNetwork([50, 40, 30, 20, 10, 5]);
const indexOf = (weight: number): number => net.set.validators.findIndex((v) => v.weight === BigInt(weight));
const sig = (n: number): Uint8Array => new Uint8Array(96).fill(n);

function ledgerWithEvents() {
  const seen: string[] = [];
  const events: LedgerEvents = {
    invalid: (i, reason) => seen.push(`invalid ${net.set.validators[i]!.weight} ${reason}`),
    proven: (i) => seen.push(`proven ${net.set.validators[i]!.weight}`),
    checkDone: () => seen.push('done'),
    checkFailed: (err) => seen.push(`failed ${(err as Error).message}`),
  };
  return { ledger: new SignatureLedger(net.set, events), seen };
}

/** A check the test settles by hand. */
function manualChecks() {
  const started: { batch: Arrival[]; finish(): void; fail(err: Error): void }[] = [];
  const check = (batch: Arrival[]) =>
    new Promise<void>((resolve, reject) => {
      started.push({ batch, finish: resolve, fail: reject });
    });
  return { started, check, weights: (k: number) => started[k]!.batch.map((a) => Number(net.set.validators[a.index]!.weight)) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('SignatureLedger', () => {
  it('checks the heaviest waiting signatures, only as many as the target needs, one batch per free slot', async () => {
    const { ledger, seen } = ledgerWithEvents();
    for (const w of [5, 30, 50, 10, 40]) ledger.add(indexOf(w), sig(w));
    expect(ledger.inHand()).toEqual({ weight: 135n, signers: 5 });
    const checks = manualChecks();
    // 75 needs 50 and 40 (90): two batches for two free slots; 30, 10 and 5 wait in reserve.
    ledger.startChecks(checks.check, 2, 75n);
    expect(checks.started.map((_, k) => checks.weights(k))).toEqual([[50], [40]]);
    expect(ledger.idle).toBe(false);
    // No free slot: nothing more starts, whatever waits.
    ledger.startChecks(checks.check, 2);
    expect(checks.started).toHaveLength(2);
    checks.started[0]!.batch.forEach((a) => ledger.accept(a));
    checks.started[0]!.finish();
    await tick();
    expect(seen).toEqual(['done']);
    // 50 accepted and 40 in a check cover 75: nothing else is needed.
    ledger.startChecks(checks.check, 2, 75n);
    expect(checks.started).toHaveLength(2);
    // 40 turns out invalid: the reserve's heaviest, 30, makes up the 25 missing.
    ledger.reject(checks.started[1]!.batch[0]!, 'bad');
    checks.started[1]!.finish();
    await tick();
    expect(ledger.inHand()).toEqual({ weight: 95n, signers: 4 });
    ledger.startChecks(checks.check, 2, 75n);
    expect(checks.weights(2)).toEqual([30]);
    expect(seen).toEqual(['done', 'invalid 40 bad', 'done']);
  });

  it('without a target checks everything, at most 128 signatures per batch, and keeps the rest waiting for a slot', () => {
    const big = testNetwork(Array.from({ length: 300 }, (_, i) => i + 1), 0, 'ledger-big');
    const ledger = new SignatureLedger(big.set, { invalid() {}, proven() {}, checkDone() {}, checkFailed() {} });
    big.set.validators.forEach((_, i) => ledger.add(i, sig(1)));
    const sizes: number[] = [];
    ledger.startChecks(async (batch) => void sizes.push(batch.length), 2);
    expect(sizes).toEqual([128, 128]);
    expect(ledger.inHand().signers).toBe(300);
  });

  it('takes one signature at a target of 0 while none is in hand: a signed message needs a signer', () => {
    const { ledger } = ledgerWithEvents();
    ledger.add(indexOf(10), sig(10));
    ledger.add(indexOf(20), sig(20));
    const checks = manualChecks();
    ledger.startChecks(checks.check, 2, 0n);
    expect(checks.started.map((_, k) => checks.weights(k))).toEqual([[20]]);
  });

  it('reports a failed check, and nothing once closed', async () => {
    const { ledger, seen } = ledgerWithEvents();
    ledger.add(indexOf(50), sig(50));
    ledger.add(indexOf(40), sig(40));
    const checks = manualChecks();
    ledger.startChecks(checks.check, 2);
    checks.started[0]!.fail(new Error('the pool is closed'));
    await tick();
    ledger.close();
    checks.started[1]!.finish();
    await tick();
    expect(seen).toEqual(['failed the pool is closed']);
    expect(ledger.idle).toBe(true);
    ledger.add(indexOf(5), sig(5));
    ledger.startChecks(checks.check, 2);
    expect(checks.started).toHaveLength(2);
  });

  it('caches only proven signatures that are still accepted, and weighs only those', () => {
    const { ledger, seen } = ledgerWithEvents();
    const [a, b, c] = [50, 40, 30].map((w) => ({ index: indexOf(w), sig: sig(w) }));
    for (const x of [a, b, c]) ledger.add(x!.index, x!.sig);
    for (const x of [a, b, c]) ledger.accept(x!);
    ledger.prove(a!.index);
    ledger.prove(a!.index);
    ledger.prove(b!.index);
    ledger.drop(b!.index, 'found by bisection');
    expect(seen).toEqual(['proven 50', 'proven 40', 'invalid 40 found by bisection']);
    expect(ledger.provenWeight()).toBe(50n);
    expect([...ledger.verified().keys()]).toEqual([net.set.validators[a!.index]!.publicKeyHex]);
    expect(ledger.verified([c!.index]).size).toBe(0);
    expect(ledger.acceptedSigners()).toEqual([a!.index, c!.index].sort((x, y) => x - y));
    expect(ledger.acceptedWeight).toBe(80n);
  });
});
