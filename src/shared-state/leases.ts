// Cross-replica coalescing: identical requests in flight on several replicas share one
// collection. The first replica to take the request key's lease (`lease:v1:<key>`, a short
// expiry, renewed while it collects) collects; the others wait for the holder's "done" message
// on the `done:v1` channel, looking again every quarter lease meanwhile, and then find the
// signatures in the shared cache. Done, the holder leaves a "done" marker for one lease period
// instead of deleting the lease: a replica that looked at the cache just before the signatures
// were written, and at the lease just after, sees the marker, looks at the cache again and
// collects nothing (it replaces the marker and collects only when the cache still falls short,
// as after a holder's failed collection). A holder that dies (kill -9) stops renewing: its lease
// expires and the next waiter to look takes it over. A waiter never waits past its own limit:
// then it collects alone. Redis unavailable: every replica collects alone.
import { randomBytes } from 'node:crypto';
import type { SharedConnection } from './connection.js';
import type { SharedStateEvents } from './events.js';

export interface ClaimOptions {
  /** Whether the signatures cached (here and shared) reach the target now: then nobody needs to collect. */
  enough(): Promise<boolean>;
  /** When to stop waiting for another replica (ms since the epoch) and collect alone. */
  waitUntil: number;
  signal: AbortSignal;
}

/** This replica collects for the request key: release once the signatures are in the shared cache. */
export interface Claim {
  release(): Promise<void>;
}

const DONE_CHANNEL = 'done:v1';

/** What a finished holder leaves in its lease's place, for one lease period. */
const DONE = 'done';
/**
 * Takes the lease when it is free, or (ARGV[3] = 1) when it holds the done marker. Returns
 * 'taken', 'done' (a holder finished: look at the cache again) or 'held'.
 */
const CLAIM_LUA = `
local v = redis.call('GET', KEYS[1])
if (not v) or (v == '${DONE}' and ARGV[3] == '1') then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 'taken'
end
if v == '${DONE}' then return 'done' end
return 'held'
`;
/** Marks the lease done (with the lease's expiry), or renews it, only while it is still ours (another replica may hold it after an expiry). */
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], '${DONE}', 'PX', ARGV[2]) else return 0 end`;
const RENEW_LUA = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

export class Leases {
  /** Request key → the wake-ups of the waiters on this replica. */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(
    private readonly conn: SharedConnection,
    private readonly leaseMs: number,
    private readonly events: SharedStateEvents = {},
  ) {
    conn.listen(DONE_CHANNEL);
  }

  /** A "done" message (from the connection's subscription). */
  onMessage(channel: string, requestKey: string): void {
    if (channel !== DONE_CHANNEL) return;
    const wakeups = this.waiting.get(requestKey);
    if (wakeups) for (const wake of [...wakeups]) wake();
  }

  /**
   * A claim when this replica is to collect under the lease; null when it need not (the cache
   * reaches the target) or must collect without one (Redis unavailable, or the wait ran out).
   */
  async claim(requestKey: string, opts: ClaimOptions): Promise<Claim | null> {
    const leaseKey = this.conn.key(`lease:v1:${requestKey}`);
    const token = randomBytes(12).toString('hex');
    let waited = false;
    let replaceDone = false;
    for (;;) {
      if (await opts.enough()) {
        if (waited) this.events.onCoalesced?.('waiter');
        return null;
      }
      let outcome: unknown;
      try {
        outcome = await this.conn.run('claim', (c) => c.eval(CLAIM_LUA, 1, leaseKey, token, this.leaseMs, replaceDone ? '1' : '0'));
      } catch {
        this.events.onFallback?.('coalescing');
        return null;
      }
      if (outcome === 'taken') {
        this.events.onCoalesced?.(waited || replaceDone ? 'takeover' : 'holder');
        return this.hold(requestKey, leaseKey, token);
      }
      if (outcome === 'done' && !replaceDone) {
        // A holder finished between the look at the cache and this one: look again at once, and
        // collect (replacing its marker) only if the cache still falls short.
        waited = true;
        replaceDone = true;
        continue;
      }
      waited = true;
      const left = opts.waitUntil - Date.now();
      if (left <= 0 || opts.signal.aborted) return null;
      await this.wake(requestKey, Math.min(left, Math.max(50, this.leaseMs / 4)), opts.signal);
    }
  }

  private hold(requestKey: string, leaseKey: string, token: string): Claim {
    const renew = setInterval(() => void this.run('renew', (c) => c.eval(RENEW_LUA, 1, leaseKey, token, this.leaseMs)), Math.max(50, this.leaseMs / 3));
    renew.unref();
    let released: Promise<void> | undefined;
    return {
      release: () =>
        (released ??= (async () => {
          clearInterval(renew);
          await this.run('release', (c) => c.eval(RELEASE_LUA, 1, leaseKey, token, this.leaseMs));
          await this.run('publish', (c) => c.publish(this.conn.key(DONE_CHANNEL), requestKey));
        })()),
    };
  }

  /** Resolves on a "done" message for the key, after `ms`, or when the signal aborts. */
  private wake(requestKey: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let set = this.waiting.get(requestKey);
      if (!set) this.waiting.set(requestKey, (set = new Set()));
      const wakeups = set;
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        wakeups.delete(done);
        if (wakeups.size === 0 && this.waiting.get(requestKey) === wakeups) this.waiting.delete(requestKey);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      wakeups.add(done);
    });
  }

  private async run(name: string, command: Parameters<SharedConnection['run']>[1]): Promise<void> {
    await this.conn.run(name, command).catch(() => undefined);
  }
}
