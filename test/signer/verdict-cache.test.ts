// The signer's verdict cache (src/signer/verdict-cache.ts): what it keeps (only verdicts that can
// never change), by what key (message and justification), for how long and how many, and that
// concurrent requests for one message share one decision.
import { describe, expect, it } from 'vitest';
import { PolicyError } from '../../src/signer/policy.js';
import type { SigningPolicy, UnsignedMessage, Verdict } from '../../src/signer/types.js';
import { CachedPolicy } from '../../src/signer/verdict-cache.js';
import { message } from '../peers/helpers.js';

const none = new Uint8Array();

/** A policy that answers `verdict` for every message and counts what it was asked. */
function counting(verdict: (m: UnsignedMessage) => Verdict, delay?: Promise<void>): SigningPolicy & { asked: number } {
  const p = {
    asked: 0,
    async check(m: UnsignedMessage) {
      return (await p.decide(m)).reason;
    },
    async decide(m: UnsignedMessage): Promise<Verdict> {
      p.asked++;
      await delay;
      return verdict(m);
    },
  };
  return p;
}

describe('CachedPolicy', () => {
  it('keeps final verdicts, allows and refusals alike, and asks again for the others', async () => {
    const inner = counting((m) => {
      const text = new TextDecoder().decode(m.payload);
      return { reason: text.startsWith('allow') ? null : `refused ${text}`, final: text.endsWith('final') };
    });
    const cache = new CachedPolicy(inner, { maxEntries: 10, ttlMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      expect(await cache.check(message('allow final'), none)).toBeNull();
      expect(await cache.check(message('deny final'), none)).toBe('refused deny final');
      expect(await cache.check(message('allow moving'), none)).toBeNull();
      expect(await cache.check(message('deny transient'), none)).toBe('refused deny transient');
    }
    // 1 + 1 for the final ones, 3 + 3 for the others.
    expect(inner.asked).toBe(8);
    expect(cache.size).toBe(2);
  });

  it('keys a verdict by the message and its justification', async () => {
    const inner = counting(() => ({ reason: null, final: true }));
    const cache = new CachedPolicy(inner, { maxEntries: 10, ttlMs: 60_000 });
    const m = message('same message');
    await cache.check(m, none);
    await cache.check(m, Uint8Array.of(1));
    await cache.check(m, Uint8Array.of(2));
    await cache.check(m, Uint8Array.of(1));
    expect(inner.asked).toBe(3);
  });

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const inner = counting(() => ({ reason: null, final: true }));
    const cache = new CachedPolicy(inner, { maxEntries: 2, ttlMs: 60_000 });
    const [a, b, c] = [message('a'), message('b'), message('c')];
    await cache.check(a, none);
    await cache.check(b, none);
    await cache.check(a, none); // a is now the most recently used
    await cache.check(c, none); // b goes
    expect(inner.asked).toBe(3);
    await cache.check(a, none);
    await cache.check(c, none);
    expect(inner.asked).toBe(3);
    await cache.check(b, none);
    expect(inner.asked).toBe(4);
    expect(cache.size).toBe(2);
  });

  it('forgets a verdict after ttlMs', async () => {
    let now = 0;
    const inner = counting(() => ({ reason: null, final: true }));
    const cache = new CachedPolicy(inner, { maxEntries: 10, ttlMs: 1_000, now: () => now });
    await cache.check(message('x'), none);
    now = 999;
    await cache.check(message('x'), none);
    expect(inner.asked).toBe(1);
    now = 1_000;
    await cache.check(message('x'), none);
    expect(inner.asked).toBe(2);
  });

  it('shares one decision among concurrent requests for the same message, final or not', async () => {
    let release: () => void = () => {};
    const inner = counting(() => ({ reason: 'the node did not answer', final: false }), new Promise((r) => (release = r)));
    const cache = new CachedPolicy(inner, { maxEntries: 10, ttlMs: 60_000 });
    const answers = Array.from({ length: 5 }, () => cache.check(message('flood'), none));
    release();
    expect(await Promise.all(answers)).toEqual(Array(5).fill('the node did not answer'));
    expect(inner.asked).toBe(1);
    // Not final: the next request asks again.
    await cache.check(message('flood'), none);
    expect(inner.asked).toBe(2);
  });

  it('never keeps the answer of a policy that does not say whether it is final', async () => {
    let asked = 0;
    const cache = new CachedPolicy({ check: async () => (asked++, null) }, { maxEntries: 10, ttlMs: 60_000 });
    await cache.check(message('x'), none);
    await cache.check(message('x'), none);
    expect(asked).toBe(2);
  });

  it('passes a thrown error on and keeps nothing', async () => {
    let asked = 0;
    const cache = new CachedPolicy(
      {
        check: async () => null,
        decide: async () => {
          asked++;
          throw new PolicyError('broken');
        },
      },
      { maxEntries: 10, ttlMs: 60_000 },
    );
    await expect(cache.check(message('x'), none)).rejects.toThrow('broken');
    await expect(cache.check(message('x'), none)).rejects.toThrow('broken');
    expect(asked).toBe(2);
  });

  it('checks its bounds', () => {
    const inner = counting(() => ({ reason: null, final: true }));
    expect(() => new CachedPolicy(inner, { maxEntries: -1, ttlMs: 1 })).toThrow(RangeError);
    expect(() => new CachedPolicy(inner, { maxEntries: 1, ttlMs: 0 })).toThrow(RangeError);
  });
});
