// A RelayerStore in memory: nothing survives the process. For tests and a relayer run only to
// try a configuration; the same semantics as the file store (conditional updates by version,
// checkpoints that only rise, prune of finished records), which test/relayer/store-contract.ts
// checks for both.
import type { Hex, MessageRecord, MessageStatus, RelayerStore } from '../ports.js';
import { isFinished } from './record-codec.js';

export function createMemoryStore(): RelayerStore {
  const records = new Map<Hex, MessageRecord>();
  const byTeleporterId = new Map<Hex, Hex>();
  const checkpoints = new Map<string, number>();
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error('relayer store is closed');
  };
  return {
    async get(id) {
      return records.get(id);
    },
    async getByTeleporterId(id) {
      const warpId = byTeleporterId.get(id);
      return warpId && records.get(warpId);
    },
    async insert(id, record) {
      open();
      if (records.has(id)) return false;
      records.set(id, { ...record, version: 1 });
      byTeleporterId.set(record.message.teleporterMessageId, id);
      return true;
    },
    async update(id, expectedVersion, next) {
      open();
      if (records.get(id)?.version !== expectedVersion) return false;
      records.set(id, { ...next, version: expectedVersion + 1 });
      return true;
    },
    async list(filter: { readonly route?: string; readonly statuses?: readonly MessageStatus[]; readonly limit: number }) {
      const out: MessageRecord[] = [];
      for (const record of records.values()) {
        if (out.length >= filter.limit) break;
        if (filter.route !== undefined && record.route !== filter.route) continue;
        if (filter.statuses && !filter.statuses.includes(record.status)) continue;
        out.push(record);
      }
      return out;
    },
    async checkpoint(route) {
      return checkpoints.get(route);
    },
    async advanceCheckpoint(route, height) {
      open();
      if (height > (checkpoints.get(route) ?? -1)) checkpoints.set(route, height);
    },
    async prune(before) {
      let count = 0;
      for (const [id, record] of records) {
        if (isFinished(record.status) && record.updatedAt < before) {
          records.delete(id);
          byTeleporterId.delete(record.message.teleporterMessageId);
          count++;
        }
      }
      return count;
    },
    async close() {
      closed = true;
    },
  };
}
