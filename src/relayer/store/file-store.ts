// The embedded RelayerStore: one append-only JSON-lines file (append-log.ts), every write
// fdatasync'd before its promise resolves, replayed on open. A `kill -9` loses nothing that was
// acknowledged; a torn last line (a crash mid-append) is dropped on open.
//
// Lines: {"t":"put","id":…,"r":record} (a record's newest version), {"t":"cp","route":…,"h":n}
// (a checkpoint), {"t":"del","ids":[…]} (pruned). When the file outgrows `compactAfterBytes` and
// is mostly superseded lines, it is rewritten with only the newest ones (atomic rename).
//
// Memory: an index entry per message not yet pruned (IDs, route, status, version, where its line
// is: ~300 bytes), and the whole record only for messages still in progress (seen, signed,
// submitted, parked), whose number the engine's backlog cap bounds. Finished records are read
// back from the file when asked for.
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Hex, MessageRecord, MessageStatus, RelayerStore } from '../ports.js';
import { AppendLog, scanLog, type PendingLine } from './append-log.js';
import { lockFile } from './file-lock.js';
import { isFinished, recordFromJson, recordToJson } from './record-codec.js';

export interface FileStoreOptions {
  /** The log file; its folder is created. */
  readonly path: string;
  /** Rewrite the log once it is this big and more than half of it is superseded (default 64 MiB). */
  readonly compactAfterBytes?: number;
}

interface Entry {
  route: string;
  status: MessageStatus;
  version: number;
  teleporterId: Hex;
  updatedAt: number;
  /** The record, while in progress or until its line is durable. */
  record: MessageRecord | undefined;
  /** Where its newest durable line is (-1 before the first is). */
  offset: number;
  length: number;
}

const DEFAULT_COMPACT_AFTER = 64 * 1024 * 1024;

export async function openFileStore(options: FileStoreOptions): Promise<RelayerStore & { readonly logBytes: () => number }> {
  await mkdir(dirname(options.path), { recursive: true });
  const unlock = await lockFile(`${options.path}.lock`);
  try {
    return await openLocked(options, unlock);
  } catch (err) {
    await unlock();
    throw err;
  }
}

async function openLocked(options: FileStoreOptions, unlock: () => Promise<void>): Promise<RelayerStore & { readonly logBytes: () => number }> {
  const entries = new Map<Hex, Entry>();
  const checkpoints = new Map<string, number>();
  const byTeleporterId = new Map<Hex, Hex>();
  const exists = await stat(options.path).then(() => true, () => false);
  const validEnd = exists
    ? await scanLog(options.path, (value, offset, length) => {
        const line = value as { t: string; id?: Hex; r?: Record<string, unknown>; route?: string; h?: number; ids?: Hex[] };
        if (line.t === 'put' && line.id && line.r) {
          const record = recordFromJson(line.r);
          entries.set(line.id, entryOf(record, offset, length));
          byTeleporterId.set(record.message.teleporterMessageId, line.id);
        } else if (line.t === 'cp' && line.route !== undefined && typeof line.h === 'number') {
          checkpoints.set(line.route, Math.max(line.h, checkpoints.get(line.route) ?? -1));
        } else if (line.t === 'del' && line.ids) {
          for (const id of line.ids) forget(id);
        }
      })
    : 0;
  const log = await AppendLog.open(options.path, validEnd);
  return new FileStore(log, entries, checkpoints, byTeleporterId, options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER, unlock);

  function forget(id: Hex): void {
    const entry = entries.get(id);
    if (entry) byTeleporterId.delete(entry.teleporterId);
    entries.delete(id);
  }
}

function entryOf(record: MessageRecord, offset: number, length: number): Entry {
  return {
    route: record.route,
    status: record.status,
    version: record.version,
    teleporterId: record.message.teleporterMessageId,
    updatedAt: record.updatedAt,
    record: isFinished(record.status) ? undefined : record,
    offset,
    length,
  };
}

class FileStore implements RelayerStore {
  private nextCompactionCheck: number;
  private compacting: Promise<void> | undefined;

  constructor(
    private readonly log: AppendLog,
    private readonly entries: Map<Hex, Entry>,
    private readonly checkpoints: Map<string, number>,
    private readonly byTeleporterId: Map<Hex, Hex>,
    private readonly compactAfterBytes: number,
    private readonly unlock: () => Promise<void>,
  ) {
    this.nextCompactionCheck = compactAfterBytes;
  }

  /** The log's size in bytes (for tests and the status page). */
  logBytes = (): number => this.log.size;

  async get(warpMessageId: Hex): Promise<MessageRecord | undefined> {
    const entry = this.entries.get(warpMessageId);
    return entry && this.load(warpMessageId, entry);
  }

  async getByTeleporterId(teleporterMessageId: Hex): Promise<MessageRecord | undefined> {
    const id = this.byTeleporterId.get(teleporterMessageId);
    return id && this.get(id);
  }

  async insert(warpMessageId: Hex, record: MessageRecord): Promise<boolean> {
    if (this.entries.has(warpMessageId)) return false;
    await this.put(warpMessageId, { ...record, version: 1 });
    return true;
  }

  async update(warpMessageId: Hex, expectedVersion: number, next: Omit<MessageRecord, 'version'>): Promise<boolean> {
    const entry = this.entries.get(warpMessageId);
    if (!entry || entry.version !== expectedVersion) return false;
    await this.put(warpMessageId, { ...next, version: expectedVersion + 1 });
    return true;
  }

  async list(filter: { readonly route?: string; readonly statuses?: readonly MessageStatus[]; readonly limit: number }): Promise<MessageRecord[]> {
    const picked: Array<[Hex, Entry]> = [];
    for (const [id, entry] of this.entries) {
      if (picked.length >= filter.limit) break;
      if (filter.route !== undefined && entry.route !== filter.route) continue;
      if (filter.statuses && !filter.statuses.includes(entry.status)) continue;
      picked.push([id, entry]);
    }
    const records = await Promise.all(picked.map(([id, entry]) => this.load(id, entry)));
    return records.filter((r): r is MessageRecord => r !== undefined);
  }

  async checkpoint(route: string): Promise<number | undefined> {
    return this.checkpoints.get(route);
  }

  async advanceCheckpoint(route: string, height: number): Promise<void> {
    if (height <= (this.checkpoints.get(route) ?? -1)) return;
    this.checkpoints.set(route, height);
    await this.log.append([{ text: JSON.stringify({ t: 'cp', route, h: height }) }]);
  }

  async prune(before: number): Promise<number> {
    const ids: Hex[] = [];
    for (const [id, entry] of this.entries) {
      if (isFinished(entry.status) && entry.updatedAt < before && entry.offset >= 0) ids.push(id);
    }
    if (!ids.length) return 0;
    for (const id of ids) {
      this.byTeleporterId.delete(this.entries.get(id)!.teleporterId);
      this.entries.delete(id);
    }
    await this.log.append([{ text: JSON.stringify({ t: 'del', ids }) }]);
    this.maybeCompact();
    return ids.length;
  }

  async close(): Promise<void> {
    await this.compacting;
    await this.log.close();
    await this.unlock();
  }

  /** Applies the new version in memory now (so conditional updates see it at once), durable when resolved. */
  private async put(id: Hex, record: MessageRecord): Promise<void> {
    const previous = this.entries.get(id);
    const entry = entryOf(record, previous?.offset ?? -1, previous?.length ?? 0);
    entry.record = record; // held until its line is durable, whatever its status
    this.entries.set(id, entry);
    this.byTeleporterId.set(entry.teleporterId, id);
    const line: PendingLine = {
      text: JSON.stringify({ t: 'put', id, r: recordToJson(record) }),
      written: (offset, length) => {
        if (this.entries.get(id) !== entry) return; // superseded or pruned meanwhile
        entry.offset = offset;
        entry.length = length;
        if (isFinished(entry.status)) entry.record = undefined;
      },
    };
    await this.log.append([line]);
    this.maybeCompact();
  }

  private async load(id: Hex, entry: Entry): Promise<MessageRecord | undefined> {
    if (entry.record) return entry.record;
    const text = await this.log.read(entry.offset, entry.length);
    if (this.entries.get(id) !== entry) return this.get(id); // moved by a compaction meanwhile
    const line = JSON.parse(text) as { r: Record<string, unknown> };
    return recordFromJson(line.r);
  }

  /** Starts a compaction in the background when the log is big and mostly superseded lines. */
  private maybeCompact(): void {
    if (this.compacting || this.log.size < this.nextCompactionCheck) return;
    let liveBytes = 0;
    for (const entry of this.entries.values()) liveBytes += entry.length + 1;
    if (this.log.size < 2 * liveBytes) {
      this.nextCompactionCheck = Math.max(this.compactAfterBytes, this.log.size * 1.5);
      return;
    }
    const byOffset = new Map<number, Entry>();
    for (const entry of this.entries.values()) if (entry.offset >= 0) byOffset.set(entry.offset, entry);
    const header = [...this.checkpoints].map(([route, h]) => JSON.stringify({ t: 'cp', route, h }));
    this.compacting = this.log
      .compact(
        header,
        (offset) => byOffset.get(offset)?.offset === offset,
        (from, to) => {
          const entry = byOffset.get(from);
          if (entry && entry.offset === from) entry.offset = to;
        },
      )
      .catch(() => undefined) // the old log is intact when a rewrite fails; the next check retries
      .finally(() => {
        this.compacting = undefined;
        this.nextCompactionCheck = Math.max(this.compactAfterBytes, this.log.size * 2);
      });
  }
}
