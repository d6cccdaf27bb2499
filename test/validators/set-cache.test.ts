import { sha256 } from '@noble/hashes/sha2.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/bls/index.js';
import type { ValidatorEntry } from '../../src/validators/canonical-set.js';
import { PChainError } from '../../src/validators/errors.js';
import { PChainClient } from '../../src/validators/pchain-client.js';
import { ValidatorSetCache, type ValidatorSetSource } from '../../src/validators/set-cache.js';
import { idToString, P_CHAIN_ID, PRIMARY_NETWORK_ID } from '../../src/warp/cb58.js';
import { countingBackend, fixtureEntries, fixtureValidatorsAtResult, vector } from './fixture.js';
import { startRpcServer, type RpcServer } from './rpc-server.js';

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

  private async answer<T>(call: string, value: T): Promise<T> {
    this.calls.push(call);
    if (this.gate) await this.gate;
    if (this.fail) throw new PChainError(call.split(':')[0]!, 'unreachable', 'node unreachable');
    return value;
  }

  getCurrentValidators(subnetId: Uint8Array): Promise<ValidatorEntry[]> {
    return this.answer(`platform.getCurrentValidators:${idToString(subnetId)}`, fixtureEntries());
  }

  getValidatorsAt(height: number | 'proposed', subnetId: Uint8Array): Promise<ValidatorEntry[]> {
    return this.answer(`platform.getValidatorsAt:${idToString(subnetId)}:${height}`, fixtureEntries());
  }

  validatedBy(): Promise<Uint8Array> {
    return this.answer('platform.validatedBy', Uint8Array.from(SUBNET));
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
    for (const p of waiting) await expect(p).rejects.toBeInstanceOf(PChainError);
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
    await expect(cache.signingSubnetFor(CHAIN)).rejects.toBeInstanceOf(PChainError);
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
