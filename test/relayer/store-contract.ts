// What every RelayerStore promises (ports.ts), as a suite any store runs: the embedded ones here,
// the Redis one (issue 38) with its own server.
import { describe, expect, it } from 'vitest';
import type { RelayerStore } from '../../src/relayer/ports.js';
import { recordOf } from './fakes.js';

export function storeContract(name: string, open: () => Promise<RelayerStore>): void {
  describe(`${name}: the RelayerStore contract`, () => {
    it('inserts once, gets by Warp and Teleporter ID, and keeps bigints', async () => {
      const store = await open();
      const r = recordOf({ submissions: [{ txHash: '0x01', from: '0x02', nonce: 3, gasLimit: 10n ** 20n, maxFeePerGas: 7n, maxPriorityFeePerGas: 1n, at: 5 }] });
      expect(await store.insert(r.message.warpMessageId, r)).toBe(true);
      expect(await store.insert(r.message.warpMessageId, { ...r, status: 'skipped' })).toBe(false);
      const got = await store.get(r.message.warpMessageId);
      expect(got).toEqual({ ...r, version: 1 });
      expect(got!.submissions[0]!.gasLimit).toBe(10n ** 20n);
      expect(got!.message.requiredGasLimit).toBe(r.message.requiredGasLimit);
      expect(await store.getByTeleporterId?.(r.message.teleporterMessageId)).toEqual(got);
      await store.close();
    });

    it('updates only from the expected version, bumping it', async () => {
      const store = await open();
      const r = recordOf();
      const id = r.message.warpMessageId;
      await store.insert(id, r);
      const { version: _v, ...rest } = r;
      const [a, b] = await Promise.all([store.update(id, 1, { ...rest, status: 'signed' }), store.update(id, 1, { ...rest, status: 'parked' })]);
      expect([a, b].sort()).toEqual([false, true]);
      const after = await store.get(id);
      expect(after!.version).toBe(2);
      expect(await store.update(id, 1, { ...rest, status: 'delivered' })).toBe(false);
      expect(await store.update(id, 2, { ...rest, status: 'delivered' })).toBe(true);
      expect((await store.get(id))!.status).toBe('delivered');
      await store.close();
    });

    it('lists by route and status, oldest first, up to the limit', async () => {
      const store = await open();
      const records = [1n, 2n, 3n, 4n].map((nonce, i) => recordOf({ nonce, status: i === 2 ? 'parked' : 'seen', route: i === 3 ? 'c->d' : 'a->b' }));
      for (const r of records) await store.insert(r.message.warpMessageId, r);
      const seen = await store.list({ route: 'a->b', statuses: ['seen'], limit: 10 });
      expect(seen.map((r) => r.message.warpMessageId)).toEqual([records[0]!, records[1]!].map((r) => r.message.warpMessageId));
      expect(await store.list({ statuses: ['seen'], limit: 1 })).toHaveLength(1);
      expect((await store.list({ statuses: ['parked'], limit: 10 }))[0]!.message.warpMessageId).toBe(records[2]!.message.warpMessageId);
      await store.close();
    });

    it('raises checkpoints and never lowers them', async () => {
      const store = await open();
      expect(await store.checkpoint('a->b')).toBeUndefined();
      await store.advanceCheckpoint('a->b', 10);
      await store.advanceCheckpoint('a->b', 7);
      expect(await store.checkpoint('a->b')).toBe(10);
      await store.close();
    });

    it('prunes finished records older than the cut, nothing else', async () => {
      const store = await open();
      const old = recordOf({ nonce: 1n, status: 'delivered', updatedAt: 100 });
      const skipped = recordOf({ nonce: 2n, status: 'skipped', updatedAt: 100 });
      const recent = recordOf({ nonce: 3n, status: 'delivered', updatedAt: 1_000 });
      const parked = recordOf({ nonce: 4n, status: 'parked', updatedAt: 100 });
      for (const r of [old, skipped, recent, parked]) await store.insert(r.message.warpMessageId, r);
      expect(await store.prune(500)).toBe(2);
      expect(await store.get(old.message.warpMessageId)).toBeUndefined();
      expect(await store.get(skipped.message.warpMessageId)).toBeUndefined();
      expect(await store.get(recent.message.warpMessageId)).toBeDefined();
      expect(await store.get(parked.message.warpMessageId)).toBeDefined();
      await store.close();
    });
  });
}
