// The token bucket behind every per-client budget (proxy, aggregation endpoints, peer handshakes).
import { describe, expect, test } from 'vitest';
import { RateLimiter } from '../../src/util/rate-limit.js';

describe('RateLimiter', () => {
  test('a burst of a minute’s budget, then refusals with the seconds until a token is back', () => {
    let now = 0;
    const rl = new RateLimiter({ requestsPerMinute: 6, now: () => now });
    for (let i = 0; i < 6; i++) expect(rl.take('ip')).toEqual({ ok: true });
    expect(rl.take('ip')).toEqual({ ok: false, retryAfterSeconds: 10 });
    now += 9_000;
    expect(rl.take('ip')).toEqual({ ok: false, retryAfterSeconds: 1 });
    now += 1_000;
    expect(rl.take('ip')).toEqual({ ok: true });
    expect(rl.take('other')).toEqual({ ok: true });
  });

  test('refill never exceeds the burst size', () => {
    let now = 0;
    const rl = new RateLimiter({ requestsPerMinute: 2, now: () => now });
    rl.take('k');
    now += 3_600_000;
    expect(rl.take('k').ok).toBe(true);
    expect(rl.take('k').ok).toBe(true);
    expect(rl.take('k').ok).toBe(false);
  });

  test('a cost above the burst size empties the bucket instead of failing forever', () => {
    let now = 0;
    const rl = new RateLimiter({ requestsPerMinute: 60, now: () => now });
    expect(rl.take('k', 500)).toEqual({ ok: true });
    expect(rl.take('k')).toEqual({ ok: false, retryAfterSeconds: 1 });
    now += 60_000;
    expect(rl.take('k', 60)).toEqual({ ok: true });
  });

  test('tracked keys are bounded; the least recently used goes first', () => {
    const rl = new RateLimiter({ requestsPerMinute: 1, maxKeys: 2, now: () => 0 });
    rl.take('a');
    rl.take('b');
    rl.take('a');
    rl.take('c'); // evicts b
    expect(rl.size).toBe(2);
    expect(rl.take('a').ok).toBe(false); // still tracked, still empty
    expect(rl.take('b').ok).toBe(true); // forgotten: a fresh bucket
  });

  test('rejects a non-positive rate', () => {
    expect(() => new RateLimiter({ requestsPerMinute: 0 })).toThrow(RangeError);
  });
});
