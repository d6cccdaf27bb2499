import { afterEach, describe, expect, it } from 'vitest';
import { RelayerError, type RelayerErrorCode } from '../../src/relayer/errors.js';
import { createRelayer } from '../../src/relayer/engine.js';
import { createLocalLeases } from '../../src/relayer/store/local-leases.js';
import { createMemoryStore } from '../../src/relayer/store/memory-store.js';
import { CHAIN_A, CHAIN_B, eventually, FakeDestination, FakeSource, fakeSigner, MESSENGER, memoryLogger, OUR_KEY, RECEIVER, SENDER } from './fakes.js';
import { harness, ROUTE } from './harness.js';

const running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});
function started<T extends ReturnType<typeof harness>>(h: T): T {
  running.push(h.relayer);
  return h;
}

describe('relayer engine: reading the source', () => {
  it('catches up from the start height in bounded ranges, then follows live blocks', async () => {
    const h = started(harness({ limits: { catchUpRange: 10 } }));
    const early: string[] = [];
    for (let n = 1; n <= 25; n++) early.push(...h.source.mine(n % 4 === 0 ? [{}] : []).map((m) => m.warpMessageId));
    await h.relayer.start();
    await eventually('the caught-up messages delivered', () => h.destination.transactions.length === early.length);
    expect(h.source.ranges).toEqual([
      [1, 10],
      [11, 20],
      [21, 25],
    ]);
    const [live] = h.source.mine([{}]);
    await eventually('the live message delivered', async () => (await h.relayer.find(live!.warpMessageId))?.status === 'delivered');
    await eventually('the checkpoint at the head', () => h.relayer.routes()[0]!.checkpoint === 26);
    expect(h.relayer.readiness()).toEqual({ ready: true, reasons: [] });
    expect(h.events.checkpoints.at(-1)).toBe(26);
    expect(h.events.gas.length).toBe(early.length + 1);
  });

  it('starts at the head when a route has no checkpoint and no start height', async () => {
    const h = started(harness({ route: { startHeight: undefined } }));
    const [old] = h.source.mine([{}]);
    h.source.mine();
    await h.relayer.start();
    await eventually('reading live', () => h.relayer.routes()[0]!.checkpoint === 2);
    const [fresh] = h.source.mine([{}]);
    await eventually('the new message delivered', async () => (await h.relayer.find(fresh!.warpMessageId))?.status === 'delivered');
    expect(await h.relayer.find(old!.warpMessageId)).toBeUndefined();
  });

  it('resumes from its checkpoint after a restart, not from the start height', async () => {
    const store = createMemoryStore();
    const source = new FakeSource();
    const destination = new FakeDestination();
    const first = harness({ store, source, destination });
    source.mine([{}]);
    await first.relayer.start();
    await eventually('first delivered', () => destination.transactions.length === 1);
    await first.relayer.stop();
    source.mine([{}]);
    source.mine([{}]);
    source.ranges.length = 0;
    const second = started(harness({ store, source, destination }));
    await second.relayer.start();
    await eventually('the rest delivered', () => destination.transactions.length === 3);
    expect(source.ranges[0]![0]).toBe(2);
    expect([...destination.transactionsPerMessage().values()]).toEqual([1, 1, 1]);
  });

  it('after a dropped subscription, subscribes again and catches up what it missed', async () => {
    const h = started(harness());
    await h.relayer.start();
    await eventually('subscribed', () => h.source.live === 1);
    h.source.silent = true;
    const missed = [...h.source.mine([{}]), ...h.source.mine([{}, {}])];
    h.source.silent = false;
    h.source.drop();
    await eventually('the gap delivered', () => h.destination.transactions.length === missed.length);
    expect(h.source.subscriptions).toBe(2);
  });

  it('catches up a subscription that went quiet without saying so, at its idle check', async () => {
    const h = started(harness());
    await h.relayer.start();
    await eventually('subscribed', () => h.source.live === 1);
    h.source.silent = true;
    h.source.mine([{}]);
    await eventually('delivered without a live block', () => h.destination.transactions.length === 1);
  });

  it('keeps retrying an unreachable source with the reason in readiness, then runs', async () => {
    const h = started(harness());
    h.source.down = 'connect ECONNREFUSED';
    h.source.mine([{}]);
    await h.relayer.start();
    await eventually('not ready with the reason', () => h.relayer.readiness().reasons.some((r) => r.includes('ECONNREFUSED')));
    expect(h.relayer.readiness().ready).toBe(false);
    h.source.down = undefined;
    await eventually('delivered once the source answers', () => h.destination.transactions.length === 1);
    await eventually('ready', () => h.relayer.readiness().ready);
  });
});

describe('relayer engine: which messages it relays', () => {
  it('skips with the reason: already delivered, gas cap, allowlists, relayer keys not ours; the checkpoint moves on', async () => {
    const other = `0x${'99'.repeat(20)}` as const;
    const h = started(harness({ route: { maxRequiredGasLimit: 500_000n, allowedOriginSenders: [SENDER.toUpperCase().replace('0X', '0x') as `0x${string}`], allowedDestinationAddresses: [RECEIVER] } }));
    const [done] = h.source.mine([{ payload: 'already' }]);
    h.destination.received.add(done!.teleporterMessageId);
    const [heavy, stranger, elsewhere, notOurs, ours] = h.source.mine([
      { requiredGasLimit: 600_000n },
      { originSender: other },
      { destinationAddress: other },
      { allowedRelayers: [other] },
      { allowedRelayers: [other, OUR_KEY] },
    ]);
    h.source.mine();
    await h.relayer.start();
    await eventually('the allowed one delivered', async () => (await h.relayer.find(ours!.warpMessageId))?.status === 'delivered');
    await eventually('checkpoint past them all', () => h.relayer.routes()[0]!.checkpoint === 3);
    const reason = async (id: `0x${string}`) => {
      const r = await h.relayer.find(id);
      return `${r?.status}: ${r?.reason}`;
    };
    await eventually('already delivered recorded', async () => (await reason(done!.warpMessageId)) === 'skipped: already delivered');
    expect(await reason(heavy!.warpMessageId)).toMatch(/^skipped: requiredGasLimit 600000 is above the route's cap 500000/);
    expect(await reason(stranger!.warpMessageId)).toMatch(/^skipped: origin sender .* not in the route's allowlist/);
    expect(await reason(elsewhere!.warpMessageId)).toMatch(/^skipped: destination address .* not in the route's allowlist/);
    expect(await reason(notOurs!.warpMessageId)).toMatch(/^skipped: none of our relayer keys/);
    expect(h.destination.transactions.map((t) => t.warpMessageId)).toEqual([ours!.warpMessageId]);
    expect(h.events.outcomes.filter((o) => o.outcome === 'skipped')).toHaveLength(5);
  });

  it('sends one delivery transaction per message, at most maxInFlight at once', async () => {
    const h = started(harness({ limits: { maxInFlight: 4 } }));
    const sent = [];
    for (let b = 0; b < 10; b++) sent.push(...h.source.mine([{}, {}, {}, {}, {}]));
    await h.relayer.start();
    await eventually('all delivered', () => h.destination.received.size === sent.length);
    const counts = h.destination.transactionsPerMessage();
    expect(counts.size).toBe(sent.length);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(h.destination.maxConcurrent).toBeLessThanOrEqual(4);
    expect(h.events.latencies).toHaveLength(sent.length);
  });

  it('finds a message by its Warp ID or its Teleporter ID', async () => {
    const h = started(harness());
    const [m] = h.source.mine([{}]);
    await h.relayer.start();
    await eventually('delivered', () => h.destination.transactions.length === 1);
    expect((await h.relayer.find(m!.warpMessageId))?.message.teleporterMessageId).toBe(m!.teleporterMessageId);
    expect((await h.relayer.find(m!.teleporterMessageId.toUpperCase().replace('0X', '0x') as `0x${string}`))?.message.warpMessageId).toBe(m!.warpMessageId);
    expect(await h.relayer.find(`0x${'00'.repeat(32)}`)).toBeUndefined();
  });

  it('refuses a route whose chain has no port, and a route configured twice', () => {
    const base = { sign: fakeSigner().sign, store: createMemoryStore(), leases: createLocalLeases(), logger: memoryLogger() };
    const route = { sourceBlockchainId: CHAIN_A, destinationBlockchainId: CHAIN_B };
    expect(() => createRelayer({ ...base, routes: [route], sources: {}, destinations: { [CHAIN_B]: new FakeDestination() } })).toThrow(/no source/);
    expect(() =>
      createRelayer({ ...base, routes: [route, route], sources: { [CHAIN_A]: new FakeSource() }, destinations: { [CHAIN_B]: new FakeDestination() } }),
    ).toThrow(/twice/);
  });
});

describe('relayer engine: manual relay', () => {
  const code = async (p: Promise<unknown>): Promise<RelayerErrorCode | string> => p.then(() => 'ok', (e: unknown) => (e instanceof RelayerError ? e.code : String(e)));

  it('relays the message of a given block by its Warp ID, and refuses what it cannot find', async () => {
    const h = started(harness({ route: { startHeight: 'head' } }));
    const [m] = h.source.mine([{}, {}]);
    h.source.mine();
    await h.relayer.start();
    await eventually('running', () => h.relayer.readiness().ready);
    expect(await h.relayer.find(m!.warpMessageId)).toBeUndefined();
    const record = await h.relayer.relayFromBlock({ blockchainId: CHAIN_A, messageId: m!.warpMessageId, blockNumber: 1 });
    expect(record.status).toBe('seen');
    await eventually('delivered', async () => (await h.relayer.find(m!.warpMessageId))?.status === 'delivered');
    expect(h.destination.transactions).toHaveLength(1);
    expect(h.source.ranges).toContainEqual([1, 1]);
    expect(await code(h.relayer.relayFromBlock({ blockchainId: CHAIN_A, messageId: m!.warpMessageId, blockNumber: 2 }))).toBe('not-found');
    expect(await code(h.relayer.relayFromBlock({ blockchainId: CHAIN_B, messageId: m!.warpMessageId, blockNumber: 1 }))).toBe('no-route');
    // Asking again for a delivered message answers its state and sends nothing.
    expect((await h.relayer.relayFromBlock({ blockchainId: CHAIN_A, messageId: m!.warpMessageId, blockNumber: 1 })).status).toBe('delivered');
    expect(h.destination.transactions).toHaveLength(1);
  });

  it('relays an unsigned message by its bytes, refusing what no route allows and what is not Teleporter', async () => {
    const h = started(harness({ route: { startHeight: 'head', maxRequiredGasLimit: 1_000_000n } }));
    await h.relayer.start();
    const [m, heavy, toC] = [
      ...h.source.mine([{}]),
      ...h.source.mine([{ requiredGasLimit: 2_000_000n }]),
      ...h.source.mine([{ destination: CHAIN_A }]),
    ];
    await eventually('running', () => h.relayer.readiness().ready);
    const record = await h.relayer.relayMessage({ unsignedMessage: m!.unsignedMessage, sourceAddress: MESSENGER });
    expect(record.message.teleporterMessageId).toBe(m!.teleporterMessageId);
    await eventually('delivered', async () => (await h.relayer.find(m!.warpMessageId))?.status === 'delivered');
    expect(await code(h.relayer.relayMessage({ unsignedMessage: heavy!.unsignedMessage, sourceAddress: MESSENGER }))).toBe('no-route');
    expect(await code(h.relayer.relayMessage({ unsignedMessage: toC!.unsignedMessage, sourceAddress: MESSENGER }))).toBe('no-route');
    expect(await code(h.relayer.relayMessage({ unsignedMessage: m!.unsignedMessage, sourceAddress: SENDER }))).toBe('bad-message');
    expect(await code(h.relayer.relayMessage({ unsignedMessage: '0x0000', sourceAddress: MESSENGER }))).toBe('bad-message');
    expect(h.destination.transactions).toHaveLength(1);
  });

  it('refuses manual relays once stopping', async () => {
    const h = harness();
    await h.relayer.start();
    const [m] = h.source.mine([{}]);
    await h.relayer.stop();
    expect(await code(h.relayer.relayMessage({ unsignedMessage: m!.unsignedMessage, sourceAddress: MESSENGER }))).toBe('stopping');
  });
});
