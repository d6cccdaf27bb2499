import { afterEach, describe, expect, it } from 'vitest';
import type { Hex, MessageRecord } from '../../src/relayer/ports.js';
import { createMemoryStore } from '../../src/relayer/store/memory-store.js';
import { eventually, FakeDestination, FakeLeases, FakeSource, recordOf, teleporterMessage } from './fakes.js';
import { harness, ROUTE } from './harness.js';

const running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});
function started<T extends ReturnType<typeof harness>>(h: T): T {
  running.push(h.relayer);
  return h;
}
const statusOf = async (h: ReturnType<typeof harness>, id: Hex) => (await h.relayer.find(id))?.status;

describe('relayer engine: parked messages', () => {
  it('parks messages while the destination is down, moves the checkpoint on, and delivers them from the store later', async () => {
    const h = started(harness());
    await h.relayer.start();
    await eventually('running', () => h.relayer.readiness().ready);
    h.destination.down = 'connection refused';
    const stuck = h.source.mine([{}, {}]);
    await eventually('both parked', async () => (await Promise.all(stuck.map((m) => statusOf(h, m.warpMessageId)))).every((s) => s === 'parked'));
    const parked = (await h.relayer.find(stuck[0]!.warpMessageId))!;
    expect(parked.reason).toBe('connection refused');
    expect(parked.attempts).toBe(3);
    expect(parked.nextAttemptAt).toBeGreaterThan(parked.updatedAt);
    expect(h.relayer.routes()[0]!.parked).toBe(2);
    expect(h.events.parkedCounts.at(-1)).toBe(2);
    expect(h.events.retries.length).toBeGreaterThanOrEqual(6);
    h.source.mine();
    h.source.mine();
    await eventually('the checkpoint passes the parked messages', () => h.relayer.routes()[0]!.checkpoint === 3);
    h.destination.down = undefined;
    await eventually('parked ones delivered', async () => (await Promise.all(stuck.map((m) => statusOf(h, m.warpMessageId)))).every((s) => s === 'delivered'));
    expect(h.relayer.routes()[0]!.parked).toBe(0);
    expect([...h.destination.transactionsPerMessage().values()]).toEqual([1, 1]);
  });

  it('parks a message whose aggregation keeps failing, with the signer\'s reason', async () => {
    const h = started(harness());
    h.signer.failing = 'quorum not reached: 40 of 67';
    const [m] = h.source.mine([{}]);
    await h.relayer.start();
    await eventually('parked', async () => (await statusOf(h, m!.warpMessageId)) === 'parked');
    expect((await h.relayer.find(m!.warpMessageId))!.reason).toContain('quorum not reached');
    h.signer.failing = undefined;
    await eventually('delivered', async () => (await statusOf(h, m!.warpMessageId)) === 'delivered');
  });

  it('parks a hopeless delivery at the longest delay instead of retrying it soon', async () => {
    const h = started(harness());
    h.destination.outcome = () => ({ kind: 'failed', reason: 'reverted; messageReceived false' });
    const [m] = h.source.mine([{}]);
    await h.relayer.start();
    await eventually('parked', async () => (await statusOf(h, m!.warpMessageId)) === 'parked');
    const r = (await h.relayer.find(m!.warpMessageId))!;
    expect(r.attempts).toBe(1);
    expect(r.nextAttemptAt! - r.updatedAt).toBe(300);
  });
});

describe('relayer engine: leases', () => {
  it('broadcasts nothing when the lease is not held with the margin at the moment of sending', async () => {
    const leases = new FakeLeases();
    const h = started(harness({ leases }));
    await h.relayer.start();
    await eventually('running', () => h.relayer.readiness().ready);
    leases.held.set(ROUTE, false); // the margin ran out, no loss reported yet
    const [m] = h.source.mine([{}]);
    await eventually('tried', () => h.logger.entries.some((e) => e.msg?.includes('interrupted')));
    expect(h.destination.transactions).toHaveLength(0);
    expect(await statusOf(h, m!.warpMessageId)).toBe('signed');
    leases.held.set(ROUTE, true);
    await eventually('delivered', async () => (await statusOf(h, m!.warpMessageId)) === 'delivered');
    expect(h.destination.transactions).toHaveLength(1);
  });

  it('stops reading and delivering when the lease is lost, and resumes from the store when it is back', async () => {
    const leases = new FakeLeases();
    const h = started(harness({ leases }));
    await h.relayer.start();
    await eventually('running', () => h.relayer.routes()[0]!.checkpoint === 0);
    leases.set(ROUTE, false);
    expect(h.relayer.routes()[0]!.held).toBe(false);
    expect(h.relayer.readiness().ready).toBe(true); // a standby is ready to take over
    const [m] = h.source.mine([{}]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.relayer.find(m!.warpMessageId)).toBeUndefined();
    leases.set(ROUTE, true);
    await eventually('delivered after regaining', async () => (await statusOf(h, m!.warpMessageId)) === 'delivered');
  });
});

describe('relayer engine: restart and stop', () => {
  it('resumes seen, signed and submitted messages from the store; a submitted one is waited on, not sent again', async () => {
    const store = createMemoryStore();
    const destination = new FakeDestination();
    const put = async (r: MessageRecord) => void (await store.insert(r.message.warpMessageId, r));
    const seen = recordOf({ nonce: 1n, route: ROUTE });
    const signed = recordOf({ nonce: 2n, route: ROUTE, status: 'signed', signedMessage: '0x01' });
    const submittedTx = `0x${'ee'.repeat(32)}` as Hex;
    const submitted = recordOf({
      nonce: 3n,
      route: ROUTE,
      status: 'submitted',
      signedMessage: '0x02',
      submissions: [{ txHash: submittedTx, from: '0x0a', nonce: 7, gasLimit: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, at: 1 }],
    });
    for (const r of [seen, signed, submitted]) await put(r);
    destination.mined.add(submittedTx); // it mined while the relayer was down
    await store.advanceCheckpoint(ROUTE, 10);
    const source = new FakeSource();
    for (let i = 0; i < 10; i++) source.mine();
    const h = started(harness({ store, destination, source }));
    await h.relayer.start();
    await eventually('all delivered', async () => (await Promise.all([seen, signed, submitted].map((r) => statusOf(h, r.message.warpMessageId)))).every((s) => s === 'delivered'));
    expect(destination.transactions.map((t) => t.warpMessageId).sort()).toEqual([seen, signed].map((r) => r.message.warpMessageId).sort());
    expect(destination.pendingSeen).toEqual([submitted.submissions]);
    expect((await h.relayer.find(submitted.message.warpMessageId))!.deliveredTxHash).toBe(submittedTx);
    expect(h.signer.calls).toBe(1); // only the seen one needed signing
  });

  it('stop() takes no new messages and waits for deliveries in flight', async () => {
    const h = harness();
    let release!: () => void;
    h.destination.hold = new Promise((r) => (release = r));
    await h.relayer.start();
    const [first] = h.source.mine([{}]);
    await eventually('broadcast', () => h.destination.transactions.length === 1);
    let stopped = false;
    const stopping = h.relayer.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false);
    const [late] = h.source.mine([{}]);
    release();
    await stopping;
    expect(await statusOf(h, first!.warpMessageId)).toBe('delivered');
    expect(await h.relayer.find(late!.warpMessageId)).toBeUndefined();
    expect(h.destination.transactions).toHaveLength(1);
  });

  it('stop() gives up on a delivery at its deadline, with the submission recorded for the next run', async () => {
    const h = harness({ limits: { drainMs: 200 } });
    h.destination.hold = new Promise(() => undefined);
    await h.relayer.start();
    const [m] = h.source.mine([{}]);
    await eventually('broadcast', () => h.destination.transactions.length === 1);
    await h.relayer.stop();
    const r = (await h.relayer.find(m!.warpMessageId))!;
    expect(r.status).toBe('submitted');
    expect(r.submissions.map((s) => s.txHash)).toEqual([h.destination.transactions[0]!.txHash]);
  });
});

describe('relayer engine: bounds', () => {
  it('pauses reading the source while the backlog is full, losing nothing', async () => {
    const h = started(harness({ limits: { maxBacklog: 3, maxInFlight: 1, catchUpRange: 100 } }));
    let release!: () => void;
    h.destination.hold = new Promise((r) => (release = r));
    const sent = [];
    for (let i = 0; i < 12; i++) sent.push(...h.source.mine([{}]));
    await h.relayer.start();
    await eventually('first broadcast', () => h.destination.transactions.length === 1);
    await new Promise((r) => setTimeout(r, 200));
    const stored = await h.store.list({ limit: 100 });
    expect(stored.length).toBeLessThanOrEqual(4);
    expect(h.relayer.routes()[0]!.checkpoint ?? 0).toBeLessThan(12);
    release();
    h.destination.hold = undefined;
    await eventually('all delivered', () => h.destination.received.size === sent.length);
    expect([...h.destination.transactionsPerMessage().values()].every((c) => c === 1)).toBe(true);
    await eventually('checkpoint at the head', () => h.relayer.routes()[0]!.checkpoint === 12);
  });

  it('bounds the live blocks it buffers: an overflow is fetched again, not lost', async () => {
    const h = started(harness({ limits: { maxBacklog: 2, maxInFlight: 1, maxLiveBlocksQueued: 2 } }));
    let release!: () => void;
    h.destination.hold = new Promise((r) => (release = r));
    await h.relayer.start();
    await eventually('subscribed', () => h.source.live === 1);
    const sent = [];
    for (let i = 0; i < 10; i++) sent.push(...h.source.mine([{}]));
    await new Promise((r) => setTimeout(r, 200));
    release();
    h.destination.hold = undefined;
    await eventually('all delivered', () => h.destination.received.size === sent.length);
    expect(h.source.ranges.length).toBeGreaterThan(0);
  });

  it('keeps one bad message from blocking the others', async () => {
    const h = started(harness());
    const poison = teleporterMessage({ nonce: 777n, payload: 'poison' });
    h.destination.outcome = (m) => (m.warpMessageId === poison.warpMessageId ? { kind: 'retry', reason: 'nonce too low' } : undefined);
    h.source.mine([{ nonce: 777n, payload: 'poison' }]);
    const good = h.source.mine([{}, {}]);
    await h.relayer.start();
    await eventually('the others delivered', () => good.every((m) => h.destination.received.has(m.teleporterMessageId)));
    await eventually('the bad one parked', async () => (await statusOf(h, poison.warpMessageId)) === 'parked');
  });
});

describe('relayer engine: the checkpoint rule', () => {
  it('never passes a block before each of its messages has a durable state', async () => {
    const inner = createMemoryStore();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const store = { ...inner, insert: async (...args: Parameters<typeof inner.insert>) => (await gate, inner.insert(...args)) };
    const h = started(harness({ store }));
    h.source.mine();
    const [m] = h.source.mine([{}]);
    h.source.mine();
    await h.relayer.start();
    await eventually('its range read', () => h.source.ranges.length > 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(await inner.checkpoint(ROUTE)).toBeLessThan(2);
    open();
    await eventually('past it once stored', async () => (await inner.checkpoint(ROUTE)) === 3);
    await eventually('delivered', async () => (await statusOf(h, m!.warpMessageId)) === 'delivered');
  });
});
