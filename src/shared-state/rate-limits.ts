// Rate-limit budgets shared by replicas: the same token bucket as util/rate-limit.ts (a minute's
// budget as the burst, refilled continuously), kept in Redis (`rate:v1:<budget>:<client>`) and
// updated by one script, atomically, on Redis' own clock (replicas' clocks may differ). A bucket
// expires once it would be full again. While Redis cannot be used each replica charges its own
// local bucket instead: per-replica budgets meanwhile, so a client may get up to one budget per
// replica until Redis is back.
import { RateLimiter, type Budget, type BudgetFactory, type TakeResult } from '../util/rate-limit.js';
import type { SharedConnection } from './connection.js';
import type { SharedStateEvents } from './events.js';

/** KEYS[1]: the bucket. ARGV: capacity, tokens per ms, cost. Returns {1, 0} or {0, ms to wait}. */
const TAKE_LUA = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
local ok = 0
local wait = 0
if tokens + 1e-9 >= cost then
  tokens = math.max(0, tokens - cost)
  ok = 1
else
  wait = math.ceil((cost - tokens) / per_ms)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_ms) + 1000)
return {ok, wait}
`;

class SharedBudget implements Budget {
  private readonly local: RateLimiter;
  private readonly capacity: number;

  constructor(
    private readonly conn: SharedConnection,
    private readonly name: string,
    private readonly requestsPerMinute: number,
    private readonly events: SharedStateEvents,
  ) {
    this.local = new RateLimiter({ requestsPerMinute });
    this.capacity = requestsPerMinute;
  }

  async take(key: string, cost = 1): Promise<TakeResult> {
    const need = Math.min(Math.max(cost, 0), this.capacity);
    if (!this.conn.up) return this.fallback(key, cost);
    try {
      const bucket = this.conn.key(`rate:v1:${this.name}:${key}`);
      const [ok, waitMs] = await this.conn.run('rate limit', (c) => c.eval(TAKE_LUA, 1, bucket, this.capacity, this.requestsPerMinute / 60_000, need) as Promise<[number, number]>);
      return ok === 1 ? { ok: true } : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(Number(waitMs) / 1000)) };
    } catch {
      return this.fallback(key, cost);
    }
  }

  private fallback(key: string, cost: number): TakeResult {
    this.events.onFallback?.('rate_limit');
    return this.local.take(key, cost);
  }
}

/** Budgets kept in Redis, each with its local stand-in for when Redis is unavailable. */
export function sharedBudgets(conn: SharedConnection, events: SharedStateEvents = {}): BudgetFactory {
  return (name, requestsPerMinute) => new SharedBudget(conn, name, requestsPerMinute, events);
}
