import { sha256 } from '@noble/hashes/sha2.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/bls/index.js';
import type { ValidatorEntry } from '../../src/validators/canonical-set.js';
import { LookbackExceededError } from '../../src/validators/errors.js';
import { NodeError, UnknownSubnetError } from '../../src/node/errors.js';
import { PChainClient } from '../../src/node/pchain.js';
import { ValidatorSetCache, type ValidatorSetSource } from '../../src/validators/set-cache.js';
import { idToString, P_CHAIN_ID, PRIMARY_NETWORK_ID } from '../../src/warp/cb58.js';
import { countingBackend, fixtureEntries, fixtureValidatorsAtResult, vector } from './fixture.js';
import { startRpcServer, type RpcServer } from '../node/rpc-server.js';

const bls = loadBackend();
const SUBNET = sha256(new TextEncoder().encode('subnet'));
const CHAIN = sha256(new TextEncoder().encode('chain'));

/** A validator source that counts calls and answers when told to. */
class FakeSource implements ValidatorSetSource {
  calls: string[] = [];
  fail = false;
  /** When set, answers wait for release(). */
  gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  /** The signal each call came with, in call order. */
  signals: (AbortSignal | undefined)[] = [];
  /** What getHeight answers. */
  height = 10_000;
  /** What getProposedHeight answers. */
  proposed = 9_990;
  /** Entries getValidatorsAt and getCurrentValidators answer. */
  entries: () => ValidatorEntry[] = fixtureEntries;
  /** Subnets getSubnet does not know. */
  unknownSubnets = new Set<string>();

  private async answer<T>(call: string, value: T, signal?: AbortSignal): Promise<T> {
    this.calls.push(call);
    this.signals.push(signal);
    if (this.gate) {
      // Like the real client: a held call ends when its signal aborts.
      await new Promise<void>((resolve, reject) => {
        void this.gate!.then(resolve);
        signal?.addEventListener('abort', () => reject(signal.reason as unknown), { once: true });
      });
    }
    if (this.fail) throw new NodeError(call.split(':')[0]!, 'unreachable', 'node unreachable');
    return value;
  }

  getCurrentValidators(subnetId: Uint8Array, opts: { signal?: AbortSignal } = {}): Promise<ValidatorEntry[]> {
    return this.answer(`platform.getCurrentValidators:${idToString(subnetId)}`, this.entries(), opts.signal);
  }

  getValidatorsAt(height: number | 'proposed', subnetId: Uint8Array, opts: { signal?: AbortSignal } = {}): Promise<ValidatorEntry[]> {
    return this.answer(`platform.getValidatorsAt:${idToString(subnetId)}:${height}`, this.entries(), opts.signal);
  }

  validatedBy(_chain: Uint8Array, opts: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    return this.answer('platform.validatedBy', Uint8Array.from(SUBNET), opts.signal);
  }

  getHeight(opts: { signal?: AbortSignal } = {}): Promise<number> {
    return this.answer('platform.getHeight', this.height, opts.signal);
  }

  getProposedHeight(opts: { signal?: AbortSignal } = {}): Promise<number> {
    return this.answer('platform.getProposedHeight', this.proposed, opts.signal);
  }

  async getSubnet(subnetId: Uint8Array, opts: { signal?: AbortSignal } = {}): Promise<unknown> {
    const id = idToString(subnetId);
    await this.answer(`platform.getSubnet:${id}`, {}, opts.signal);
    if (this.unknownSubnets.has(id)) throw new UnknownSubnetError(id, 'not found');
    return {};
  }
}

describe('ValidatorSetCache', () => {
  it('shares one fetch among concurrent requests for one set', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    source.hold();
    const pending = Array.from({ length: 10 }, () => cache.get(SUBNET, 100));
    await new Promise((resolve) => setImmediate(resolve));
    source.release();
    const sets = await Promise.all(pending);
    expect(source.calls).toEqual([`platform.getValidatorsAt:${idToString(SUBNET)}:100`]);
    expect(new Set(sets).size).toBe(1);
    expect(sets[0]!.validators.map((v) => v.publicKeyHex)).toEqual(vector.canonical.map((c) => c.publicKey));
    // Later requests are answered from the cache.
    expect(await cache.get(SUBNET, 100)).toBe(sets[0]);
    expect(source.calls).toHaveLength(1);
  });

  it('keeps the current set (height 0) only for its TTL', async () => {
    let now = 1_000;
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls, currentTtlMs: 2000, currentMaxStaleMs: 0, now: () => now });
    const first = await cache.get(SUBNET, 0);
    now += 1999;
    expect(await cache.get(SUBNET, 0)).toBe(first);
    expect(source.calls).toEqual([`platform.getCurrentValidators:${idToString(SUBNET)}`]);
    now += 1;
    const second = await cache.get(SUBNET, 0);
    expect(second).not.toBe(first);
    expect(source.calls).toHaveLength(2);
  });

  it('after the TTL answers with the stale current set at once and refreshes it in the background, until currentMaxStaleMs', async () => {
    let now = 1_000;
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls, currentTtlMs: 2000, currentMaxStaleMs: 10_000, now: () => now });
    const first = await cache.get(SUBNET, 0);
    now += 2500;
    source.hold(); // the background refresh stays in flight until released
    expect(await cache.get(SUBNET, 0)).toBe(first);
    expect(await cache.get(SUBNET, 0)).toBe(first);
    expect(source.calls).toHaveLength(2); // one background refresh, not one per request
    source.release();
    await new Promise((r) => setTimeout(r, 0));
    const refreshed = await cache.get(SUBNET, 0);
    expect(refreshed).not.toBe(first);
    expect(source.calls).toHaveLength(2);
    now += 10_001; // past staleUntil of the refreshed set: the request waits for a new fetch
    const third = await cache.get(SUBNET, 0);
    expect(third).not.toBe(refreshed);
    expect(source.calls).toHaveLength(3);
  });

  it('evicts the least recently used set beyond maxEntries', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls, maxEntries: 2 });
    await cache.get(SUBNET, 1);
    await cache.get(SUBNET, 2);
    await cache.get(SUBNET, 1); // 1 is now the most recent
    await cache.get(SUBNET, 3); // evicts 2
    expect(cache.size).toBe(2);
    expect(source.calls).toHaveLength(3);
    await cache.get(SUBNET, 1);
    await cache.get(SUBNET, 3);
    expect(source.calls).toHaveLength(3);
    await cache.get(SUBNET, 2);
    expect(source.calls).toHaveLength(4);
    expect(cache.size).toBe(2);
  });

  it('does not cache a failed fetch; every waiter sees the failure', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    source.fail = true;
    source.hold();
    const waiting = [cache.get(SUBNET, 7), cache.get(SUBNET, 7)];
    await new Promise((resolve) => setImmediate(resolve));
    source.release();
    for (const p of waiting) await expect(p).rejects.toBeInstanceOf(NodeError);
    expect(source.calls).toHaveLength(1);
    source.fail = false;
    const set = await cache.get(SUBNET, 7);
    expect(set.totalWeight).toBe(650n);
    expect(source.calls).toHaveLength(2);
  });

  it('keys sets by subnet as well as height', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    await cache.get(SUBNET, 5);
    await cache.get(PRIMARY_NETWORK_ID, 5);
    expect(source.calls).toHaveLength(2);
  });

  it('validates each key once across refreshes of the current set', async () => {
    let now = 0;
    let parsed = 0;
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls: countingBackend(bls, () => parsed++), currentTtlMs: 10, now: () => now });
    await cache.get(SUBNET, 0);
    now += 100;
    await cache.get(SUBNET, 0);
    await cache.get(SUBNET, 9);
    expect(source.calls).toHaveLength(3);
    expect(parsed).toBe(3);
  });

  it('rejects a height that is not a non-negative integer', async () => {
    const cache = new ValidatorSetCache({ client: new FakeSource(), bls });
    await expect(cache.get(SUBNET, -1)).rejects.toThrow(RangeError);
    await expect(cache.get(SUBNET, 1.5)).rejects.toThrow(/pChainHeight must be a non-negative integer/);
  });

  it('finds the signing subnet with platform.validatedBy, once per chain', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    const answers = await Promise.all([cache.signingSubnetFor(CHAIN), cache.signingSubnetFor(CHAIN)]);
    expect(answers).toEqual([SUBNET, SUBNET]);
    expect(await cache.signingSubnetFor(CHAIN)).toEqual(SUBNET);
    expect(source.calls).toEqual(['platform.validatedBy']);
    // The P-Chain is validated by the Primary Network: no node call.
    expect(await cache.signingSubnetFor(P_CHAIN_ID)).toEqual(PRIMARY_NETWORK_ID);
    expect(source.calls).toHaveLength(1);
  });

  it('does not cache a failed validatedBy', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    source.fail = true;
    await expect(cache.signingSubnetFor(CHAIN)).rejects.toBeInstanceOf(NodeError);
    source.fail = false;
    expect(await cache.signingSubnetFor(CHAIN)).toEqual(SUBNET);
    expect(source.calls).toHaveLength(2);
  });
});

describe('ValidatorSetCache over a real node connection', () => {
  let server: RpcServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('uses getCurrentValidators for height 0 and getValidatorsAt otherwise', async () => {
    server = await startRpcServer(({ method }) => {
      if (method === 'platform.getValidatorsAt') return { result: fixtureValidatorsAtResult() };
      if (method === 'platform.getCurrentValidators') {
        const validators = Object.entries(fixtureValidatorsAtResult()).map(([nodeID, v]) =>
          v.publicKey ? { nodeID, weight: v.weight, validationID: '2oK3uWbe2Xv7mzHxrZvcyZcmy8dvGNnh4NRJHzxGAZ5Gf1DrJj', publicKey: v.publicKey, balance: '5' } : { nodeID, weight: v.weight },
        );
        return { result: { validators } };
      }
      return { error: { code: -32000, message: 'unexpected' } };
    });
    const cache = new ValidatorSetCache({ client: new PChainClient({ nodeBaseUrl: server.url }), bls });
    const [current, atHeight] = await Promise.all([cache.get(SUBNET, 0), cache.get(SUBNET, 42)]);
    expect(server.calls.map((c) => c.method).sort()).toEqual(['platform.getCurrentValidators', 'platform.getValidatorsAt']);
    for (const set of [current, atHeight]) {
      expect(set.totalWeight).toBe(650n);
      expect(set.validators.map((v) => v.publicKeyHex)).toEqual(vector.canonical.map((c) => c.publicKey));
    }
  });
});

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function outcome(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => ({ resolved: v }),
    (err: unknown) => err,
  );
}

describe('ValidatorSetCache under callers’ deadlines', () => {
  it('a caller whose signal aborts stops waiting at once; the shared fetch goes on for the others', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    source.hold();
    const early = new AbortController();
    const late = new AbortController();
    const first = outcome(cache.get(SUBNET, 77, { signal: early.signal }));
    const second = cache.get(SUBNET, 77, { signal: late.signal });
    await tick();
    const reason = new Error('first caller’s deadline');
    early.abort(reason);
    expect(await first).toBe(reason);
    // One fetch for both, and it was not cancelled by the first caller leaving.
    expect(source.calls).toEqual([`platform.getValidatorsAt:${idToString(SUBNET)}:77`]);
    expect(source.signals[0]!.aborted).toBe(false);
    source.release();
    expect((await second).totalWeight).toBe(650n);
    // A third caller is served from the cache.
    await cache.get(SUBNET, 77);
    expect(source.calls).toHaveLength(1);
  });

  it('a fetch every caller has left goes on to its end, and the set it reads serves the retry', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    source.hold();
    const ctl = new AbortController();
    const gaveUp = outcome(cache.get(SUBNET, 78, { signal: ctl.signal }));
    await tick();
    ctl.abort(new Error('deadline'));
    await gaveUp;
    expect(source.signals[0]!.aborted).toBe(false);
    source.release();
    await tick();
    // The retry is served from the cache: the slow answer was not thrown away.
    expect((await cache.get(SUBNET, 78)).totalWeight).toBe(650n);
    expect(source.calls).toHaveLength(1);
  });

  it('but at most maxEntries of them at once: past that, a fetch nobody waits for is cancelled', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls, maxEntries: 1 });
    source.hold();
    const a = new AbortController();
    const b = new AbortController();
    const pa = outcome(cache.get(SUBNET, 80, { signal: a.signal }));
    const pb = outcome(cache.get(SUBNET, 81, { signal: b.signal }));
    await tick();
    a.abort(new Error('a'));
    await pa;
    b.abort(new Error('b'));
    await pb;
    expect(source.signals.map((s) => s!.aborted)).toEqual([false, true]);
    // A caller arriving after the cancellation starts a fresh fetch rather than joining a dead one.
    source.release();
    expect((await cache.get(SUBNET, 81)).totalWeight).toBe(650n);
    expect(source.calls).toHaveLength(3);
  });

  it('signingSubnetFor: a caller leaves at its deadline, the lookup still serves the next one', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    source.hold();
    const ctl = new AbortController();
    const leaving = outcome(cache.signingSubnetFor(CHAIN, { signal: ctl.signal }));
    const staying = cache.signingSubnetFor(CHAIN);
    await tick();
    const reason = new Error('deadline');
    ctl.abort(reason);
    expect(await leaving).toBe(reason);
    source.release();
    expect(await staying).toEqual(SUBNET);
    expect(source.calls).toEqual(['platform.validatedBy']);
  });
});

describe('ValidatorSetCache lookback bound (validatorSets.maxLookback)', () => {
  it('refuses a client’s height more than maxLookback below the current one, before asking the node for the set', async () => {
    const source = new FakeSource();
    source.height = 10_000;
    const cache = new ValidatorSetCache({ client: source, bls, maxLookback: 1000 });
    const err = await outcome(cache.get(SUBNET, 8_999, { chosenByClient: true }));
    expect(err).toBeInstanceOf(LookbackExceededError);
    expect(err).toMatchObject({ height: 8_999, currentHeight: 10_000, maxLookback: 1000 });
    expect((err as Error).message).toBe(
      '8999 is more than 1000 heights below the current P-Chain height 10000; this service reads validator sets back to height 9000 (0 asks for the current set)',
    );
    expect(source.calls).toEqual(['platform.getHeight']);
    // At the bound it is served; the current height is remembered, not asked again.
    expect((await cache.get(SUBNET, 9_000, { chosenByClient: true })).totalWeight).toBe(650n);
    expect(source.calls).toEqual(['platform.getHeight', `platform.getValidatorsAt:${idToString(SUBNET)}:9000`]);
  });

  it('does not refuse heights the service chooses itself, nor the current set; 0 turns the bound off', async () => {
    const source = new FakeSource();
    source.height = 10_000;
    const bounded = new ValidatorSetCache({ client: source, bls, maxLookback: 1000 });
    await bounded.get(SUBNET, 5);
    await bounded.get(SUBNET, 0, { chosenByClient: true });
    expect(source.calls.some((c) => c === 'platform.getHeight')).toBe(false);
    const unbounded = new ValidatorSetCache({ client: source, bls, maxLookback: 0 });
    await unbounded.get(SUBNET, 6, { chosenByClient: true });
    expect(source.calls.some((c) => c === 'platform.getHeight')).toBe(false);
  });

  it('keeps the current height like the current set: fresh for the TTL, then refreshed', async () => {
    let now = 0;
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls, maxLookback: 10, currentTtlMs: 1000, currentMaxStaleMs: 1000, now: () => now });
    source.height = 100;
    await cache.get(SUBNET, 95, { chosenByClient: true });
    source.height = 200;
    await cache.get(SUBNET, 96, { chosenByClient: true }); // still 100 as far as the cache knows
    expect(source.calls.filter((c) => c === 'platform.getHeight')).toHaveLength(1);
    now += 1001;
    await expect(cache.get(SUBNET, 97, { chosenByClient: true })).rejects.toBeInstanceOf(LookbackExceededError);
    expect(source.calls.filter((c) => c === 'platform.getHeight')).toHaveLength(2);
  });
});

describe('ValidatorSetCache: the proposed height', () => {
  it('is read once for concurrent callers, reused for the TTL and never past it, and never moves back', async () => {
    let now = 1_000;
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls, currentTtlMs: 2_000, currentMaxStaleMs: 30_000, now: () => now });
    source.hold();
    const pending = Promise.all([cache.proposedHeight(), cache.proposedHeight()]);
    await new Promise((resolve) => setImmediate(resolve));
    source.release();
    expect(await pending).toEqual([9_990, 9_990]);
    source.proposed = 9_995;
    now += 1_999;
    expect(await cache.proposedHeight()).toBe(9_990);
    // Past the TTL it is read again before anyone is answered: no stale answer, unlike the current set.
    now += 1;
    expect(await cache.proposedHeight()).toBe(9_995);
    // A lagging node's lower answer does not move it back.
    source.proposed = 9_900;
    now += 2_000;
    expect(await cache.proposedHeight()).toBe(9_995);
    expect(source.calls).toEqual(['platform.getProposedHeight', 'platform.getProposedHeight', 'platform.getProposedHeight']);
  });

  it('a failure is not kept, and a caller leaves at its deadline', async () => {
    const source = new FakeSource();
    const cache = new ValidatorSetCache({ client: source, bls });
    source.fail = true;
    await expect(cache.proposedHeight()).rejects.toBeInstanceOf(NodeError);
    source.fail = false;
    source.hold();
    const reason = new Error('deadline');
    const controller = new AbortController();
    const waiting = cache.proposedHeight({ signal: controller.signal });
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    source.release();
    expect(await cache.proposedHeight()).toBe(9_990);
  });
});

describe('ValidatorSetCache: an empty answer', () => {
  it('for a subnet the P-Chain does not know is an UnknownSubnetError, and is not cached', async () => {
    const source = new FakeSource();
    source.entries = () => [];
    source.unknownSubnets.add(idToString(SUBNET));
    const cache = new ValidatorSetCache({ client: source, bls });
    await expect(cache.get(SUBNET, 0)).rejects.toBeInstanceOf(UnknownSubnetError);
    await expect(cache.get(SUBNET, 12)).rejects.toBeInstanceOf(UnknownSubnetError);
    expect(cache.size).toBe(0);
  });

  it('for a known subnet without validators at that height is an empty set', async () => {
    const source = new FakeSource();
    source.entries = () => [];
    const cache = new ValidatorSetCache({ client: source, bls });
    const set = await cache.get(SUBNET, 3);
    expect(set.validators).toHaveLength(0);
    expect(source.calls).toEqual([`platform.getValidatorsAt:${idToString(SUBNET)}:3`, `platform.getSubnet:${idToString(SUBNET)}`]);
  });
});
