// The relayer's store in Redis (issue: active/standby), for relayers that share one Redis so a
// standby finds every message's state where the active one left it. Each message is a hash under
// `msg:<Warp message ID>`: its version, route, status, first-seen and last-update times as plain
// fields (what the scripts compare and index by) and the whole record as JSON (record-codec.ts, as
// the embedded log writes it). Every write is one Lua script (EVALSHA through ioredis'
// defineCommand) that changes the record and its indexes together, so an index never disagrees
// with a record:
//   idx:r:<route>:<status>  sorted set by first-seen time: list() by route and status, oldest first;
//                           members are `<insertion number>:<ID>`, so ties keep insertion order
//   idx:s:<status>          the same across routes
//   seq                     the insertion counter
//   done                    delivered and skipped messages by last-update time: prune()
//   tid:<Teleporter ID>     the Warp message ID: lookups by Teleporter message ID
//   checkpoints             hash: route → height, raised only (a script compares)
// Every key of one script is declared, and the namespace carries a hash tag ({relayer}), so all
// relayer keys share one slot and the scripts would run unchanged on a Redis Cluster.
//
// Durability is Redis': a write resolves once Redis applied it; whether it survives a crash of
// Redis itself depends on its persistence (docs/relayer.md, "Running a standby": appendfsync always for
// nothing lost, everysec for at most about a second of writes).
import type { Redis } from 'ioredis';
import type { SharedConnection } from '../../shared-state/connection.js';
import type { Hex, MessageRecord, MessageStatus, RelayerStore } from '../ports.js';
import { recordFromJson, recordToJson } from './record-codec.js';

const STATUSES: readonly MessageStatus[] = ['seen', 'signed', 'submitted', 'delivered', 'skipped', 'parked'];
const TERMINAL: ReadonlySet<MessageStatus> = new Set(['delivered', 'skipped']);

/** Keys of the write scripts, in order: the record, its Teleporter index, `done`, `seq`, then the six route and six all-route status sets. */
const WRITE_KEYS = 4 + 2 * STATUSES.length;

// Shared by the write scripts: the status names' positions in KEYS (route set at 4 + i, all-route set at 10 + i).
const LUA_STATUS = `local IDX = {${STATUSES.map((s, i) => `${s}=${i + 1}`).join(', ')}}
local function terminal(s) return s == 'delivered' or s == 'skipped' end`;

/** ARGV: id, route, status, firstSeenAt, updatedAt, teleporter ID, JSON. 1 when stored, 0 when the record existed. */
const INSERT_LUA = `${LUA_STATUS}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local i = IDX[ARGV[3]]
local m = string.format('%016d', redis.call('INCR', KEYS[4])) .. ':' .. ARGV[1]
redis.call('HSET', KEYS[1], 'v', 1, 'm', m, 'route', ARGV[2], 'status', ARGV[3], 'seen', ARGV[4], 'upd', ARGV[5], 'tid', ARGV[6], 'rec', ARGV[7])
redis.call('ZADD', KEYS[4 + i], ARGV[4], m)
redis.call('ZADD', KEYS[10 + i], ARGV[4], m)
if terminal(ARGV[3]) then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1]) end
redis.call('SET', KEYS[2], ARGV[1])
return 1`;

/** ARGV as INSERT_LUA's, then the expected version. 1 when replaced, 0 when the version differs or the record is gone. */
const UPDATE_LUA = `${LUA_STATUS}
local cur = redis.call('HMGET', KEYS[1], 'v', 'route', 'status', 'm')
if not cur[1] or tonumber(cur[1]) ~= tonumber(ARGV[8]) then return 0 end
local m = cur[4]
if cur[2] ~= ARGV[2] then return redis.error_reply('a message cannot change route (' .. cur[2] .. ' to ' .. ARGV[2] .. ')') end
local old, new = IDX[cur[3]], IDX[ARGV[3]]
redis.call('HSET', KEYS[1], 'v', tonumber(ARGV[8]) + 1, 'status', ARGV[3], 'seen', ARGV[4], 'upd', ARGV[5], 'tid', ARGV[6], 'rec', ARGV[7])
if old and old ~= new then
  redis.call('ZREM', KEYS[4 + old], m)
  redis.call('ZREM', KEYS[10 + old], m)
end
redis.call('ZADD', KEYS[4 + new], ARGV[4], m)
redis.call('ZADD', KEYS[10 + new], ARGV[4], m)
if terminal(ARGV[3]) then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1]) else redis.call('ZREM', KEYS[3], ARGV[1]) end
return 1`;

/** ARGV: id, expected version, before (ms). Deletes a delivered or skipped record last updated before `before`, and its index entries. */
const PRUNE_LUA = `${LUA_STATUS}
local cur = redis.call('HMGET', KEYS[1], 'v', 'status', 'upd', 'm')
if not cur[1] then redis.call('ZREM', KEYS[3], ARGV[1]) return 0 end
if tonumber(cur[1]) ~= tonumber(ARGV[2]) or not terminal(cur[2]) or tonumber(cur[3]) >= tonumber(ARGV[3]) then return 0 end
local i = IDX[cur[2]]
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[4 + i], cur[4])
redis.call('ZREM', KEYS[10 + i], cur[4])
redis.call('ZREM', KEYS[3], ARGV[1])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1`;

/** KEYS[1] the checkpoints hash; ARGV route, height. Raises only. */
const CHECKPOINT_LUA = `local cur = redis.call('HGET', KEYS[1], ARGV[1])
if (not cur) or tonumber(cur) < tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return 1 end
return 0`;

type Script = (...args: (string | number)[]) => Promise<unknown>;
interface RelayerCommands {
  warpgateRelayerInsert: Script;
  warpgateRelayerUpdate: Script;
  warpgateRelayerPrune: Script;
  warpgateRelayerCheckpoint: Script;
}
type Scripted = Redis & RelayerCommands;

/** Each is defined on the shared client once; ioredis sends EVALSHA and falls back to EVAL after a NOSCRIPT. */
function scripted(client: Redis): Scripted {
  const c = client as Scripted;
  if (typeof c.warpgateRelayerInsert !== 'function') {
    client.defineCommand('warpgateRelayerInsert', { numberOfKeys: WRITE_KEYS, lua: INSERT_LUA });
    client.defineCommand('warpgateRelayerUpdate', { numberOfKeys: WRITE_KEYS, lua: UPDATE_LUA });
    client.defineCommand('warpgateRelayerPrune', { numberOfKeys: WRITE_KEYS, lua: PRUNE_LUA });
    client.defineCommand('warpgateRelayerCheckpoint', { numberOfKeys: 1, lua: CHECKPOINT_LUA });
  }
  return c;
}

/** A stored record that cannot be read back (written by something else, or damaged). */
export class CorruptRecordError extends Error {
  override name = 'CorruptRecordError';
}

interface RedisStoreOptions {
  /** Under the connection's key prefix; the default's hash tag keeps every relayer key in one cluster slot. */
  namespace?: string;
  /** Messages looked at per round trip while pruning. */
  pruneBatch?: number;
  /** Close the connection with the store (true when the store opened it). */
  ownsConnection?: boolean;
}

export const DEFAULT_RELAYER_NAMESPACE = '{relayer}:v1:';

export class RedisRelayerStore implements RelayerStore {
  private readonly ns: string;
  private readonly pruneBatch: number;

  constructor(
    private readonly conn: SharedConnection,
    private readonly opts: RedisStoreOptions = {},
  ) {
    this.ns = opts.namespace ?? DEFAULT_RELAYER_NAMESPACE;
    this.pruneBatch = Math.max(1, opts.pruneBatch ?? 200);
  }

  async get(warpMessageId: Hex): Promise<MessageRecord | undefined> {
    const fields = await this.conn.run('relayer get', (c) => c.hgetall(this.recordKey(warpMessageId)));
    return decode(warpMessageId, fields);
  }

  /** A message's state by its Teleporter message ID (RelayerControl.find takes either ID). */
  async getByTeleporterId(teleporterMessageId: Hex): Promise<MessageRecord | undefined> {
    const id = await this.conn.run('relayer tid', (c) => c.get(this.key(`tid:${teleporterMessageId.toLowerCase()}`)));
    return id ? this.get(id as Hex) : undefined;
  }

  async insert(warpMessageId: Hex, record: MessageRecord): Promise<boolean> {
    const id = warpMessageId.toLowerCase();
    const stored = { ...record, version: 1 };
    const result = await this.conn.run('relayer insert', (c) =>
      scripted(c).warpgateRelayerInsert(...this.writeKeys(id, record), ...this.writeArgs(id, stored)),
    );
    return result === 1;
  }

  async update(warpMessageId: Hex, expectedVersion: number, next: Omit<MessageRecord, 'version'>): Promise<boolean> {
    const id = warpMessageId.toLowerCase();
    const stored = { ...next, version: expectedVersion + 1 };
    const result = await this.conn.run('relayer update', (c) =>
      scripted(c).warpgateRelayerUpdate(...this.writeKeys(id, next), ...this.writeArgs(id, stored), expectedVersion),
    );
    return result === 1;
  }

  async list(filter: { readonly route?: string; readonly statuses?: readonly MessageStatus[]; readonly limit: number }): Promise<MessageRecord[]> {
    const limit = Math.max(0, Math.floor(filter.limit));
    if (limit === 0) return [];
    const statuses = filter.statuses ?? STATUSES;
    const sets = statuses.map((s) => this.statusKey(s, filter.route));
    // The oldest `limit` of each set, merged: the oldest `limit` overall are among them.
    const ranges = await this.conn.run('relayer list', (c) => {
      const p = c.pipeline();
      for (const key of sets) p.zrange(key, 0, limit - 1, 'WITHSCORES');
      return p.exec();
    });
    const candidates: { member: string; score: number }[] = [];
    for (const [err, reply] of ranges ?? []) {
      if (err) throw err;
      const flat = reply as string[];
      for (let i = 0; i < flat.length; i += 2) candidates.push({ member: flat[i]!, score: Number(flat[i + 1]) });
    }
    // As Redis orders one set: by score, then by member (whose insertion number is zero-padded).
    candidates.sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
    const ids = candidates.slice(0, limit).map((c) => c.member.slice(c.member.indexOf(':') + 1));
    if (ids.length === 0) return [];
    const replies = await this.conn.run('relayer list', (c) => {
      const p = c.pipeline();
      for (const id of ids) p.hgetall(this.recordKey(id));
      return p.exec();
    });
    const wanted = new Set(statuses);
    const out: MessageRecord[] = [];
    replies?.forEach(([err, fields], i) => {
      if (err) throw err;
      const record = decode(ids[i]!, fields as Record<string, string>);
      // Read after the index: a record another writer moved on meanwhile is left out, not shown in a state it left.
      if (record && wanted.has(record.status) && (filter.route === undefined || record.route === filter.route)) out.push(record);
    });
    return out;
  }

  /** How many of a route's messages are in a state now (e.g. `submitted`: deliveries in flight). */
  count(route: string, status: MessageStatus): Promise<number> {
    return this.conn.run('relayer count', (c) => c.zcard(this.statusKey(status, route)));
  }

  async checkpoint(route: string): Promise<number | undefined> {
    const value = await this.conn.run('relayer checkpoint', (c) => c.hget(this.key('checkpoints'), route));
    return value === null ? undefined : Number(value);
  }

  async advanceCheckpoint(route: string, height: number): Promise<void> {
    if (!Number.isSafeInteger(height) || height < 0) throw new RangeError(`checkpoint height must be a non-negative integer, got ${height}`);
    await this.conn.run('relayer checkpoint', (c) => scripted(c).warpgateRelayerCheckpoint(this.key('checkpoints'), route, height));
  }

  /** Looks at `pruneBatch` messages per round trip (ZRANGEBYSCORE on `done`, never KEYS or SCAN). */
  async prune(before: number): Promise<number> {
    let pruned = 0;
    for (;;) {
      const ids = await this.conn.run('relayer prune', (c) => c.zrangebyscore(this.key('done'), '-inf', `(${before}`, 'LIMIT', 0, this.pruneBatch));
      if (ids.length === 0) return pruned;
      const heads = await this.conn.run('relayer prune', (c) => {
        const p = c.pipeline();
        for (const id of ids) p.hmget(this.recordKey(id), 'v', 'route', 'status', 'tid');
        return p.exec();
      });
      const results = await this.conn.run('relayer prune', (c) => {
        const p = c.pipeline() as unknown as RelayerCommands & { exec(): Promise<[Error | null, unknown][] | null> };
        ids.forEach((id, i) => {
          const [version, route, , tid] = (heads?.[i]?.[1] ?? []) as (string | null)[];
          p.warpgateRelayerPrune(...this.writeKeys(id, { route: route ?? '', message: { teleporterMessageId: (tid ?? '0x') as Hex } }), id, version ?? -1, before);
        });
        return p.exec();
      });
      let progress = 0;
      for (const [err, reply] of results ?? []) {
        if (err) throw err;
        if (reply === 1) progress += 1;
      }
      pruned += progress;
      // A batch that pruned nothing was only records another writer changed meanwhile: stop rather than spin.
      if (progress === 0 || ids.length < this.pruneBatch) return pruned;
    }
  }

  async close(): Promise<void> {
    if (this.opts.ownsConnection) await this.conn.close();
  }

  private key(name: string): string {
    return this.conn.key(this.ns + name);
  }

  private recordKey(id: string): string {
    return this.key(`msg:${id.toLowerCase()}`);
  }

  private statusKey(status: MessageStatus, route?: string): string {
    return route === undefined ? this.key(`idx:s:${status}`) : this.key(`idx:r:${route}:${status}`);
  }

  private writeKeys(id: string, record: { readonly route: string; readonly message: { readonly teleporterMessageId: Hex } }): string[] {
    return [
      this.recordKey(id),
      this.key(`tid:${record.message.teleporterMessageId.toLowerCase()}`),
      this.key('done'),
      this.key('seq'),
      ...STATUSES.map((s) => this.statusKey(s, record.route)),
      ...STATUSES.map((s) => this.statusKey(s)),
    ];
  }

  private writeArgs(id: string, record: MessageRecord): (string | number)[] {
    if (!STATUSES.includes(record.status)) throw new RangeError(`unknown message status ${String(record.status)}`);
    // The version lives in its own field (the scripts compare it), not in the JSON.
    const { version: _version, ...json } = recordToJson(record);
    return [id, record.route, record.status, record.firstSeenAt, record.updatedAt, record.message.teleporterMessageId.toLowerCase(), JSON.stringify(json)];
  }
}

function decode(id: string, fields: Record<string, string>): MessageRecord | undefined {
  if (!fields || fields.v === undefined) return undefined;
  const version = Number(fields.v);
  let record: MessageRecord;
  try {
    const json: unknown = JSON.parse(fields.rec ?? '');
    if (typeof json !== 'object' || json === null) throw new Error('not an object');
    record = recordFromJson(json as Record<string, unknown>);
  } catch (err) {
    throw new CorruptRecordError(`relayer record ${id} in Redis cannot be read: ${(err as Error).message}`);
  }
  if (!Number.isSafeInteger(version) || !STATUSES.includes(record.status)) throw new CorruptRecordError(`relayer record ${id} in Redis is malformed`);
  return { ...record, version };
}
