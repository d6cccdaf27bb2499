// The signature cache's memory follows what its TTL keeps alive: expired messages go when new ones
// arrive, not only when they are asked for again (most never are) or when the bounds force them out.
import { describe, expect, it } from 'vitest';
import { SignatureCache } from '../../src/aggregator/signature-cache.js';

const sigs = (n: number, tag: string): [string, Uint8Array][] => Array.from({ length: n }, (_, i) => [`${tag}-${i}`, new Uint8Array(96)]);

describe('SignatureCache', () => {
  it('drops expired messages as new ones are added, far below its bounds', () => {
    const cache = new SignatureCache({ maxMessages: 10_000, maxSignatures: 200_000, ttlMs: 60_000 });
    let now = 0;
    // Ten minutes of one fresh message a second, 100 signatures each: 60,000 signatures, of
    // which only the last minute's (6,000) are alive.
    for (let s = 0; s < 600; s++) cache.add(`message-${s}`, sigs(100, String(s)), (now = s * 1000));
    expect(cache.size.messages).toBeLessThanOrEqual(61);
    expect(cache.size.signatures).toBeLessThanOrEqual(6_100);
    // What is alive is still served.
    expect(cache.get('message-599', now).size).toBe(100);
    expect(cache.get('message-500', now).size).toBe(0);
  });

  it('still evicts the least recently used past its bounds', () => {
    const cache = new SignatureCache({ maxMessages: 3, maxSignatures: 1_000, ttlMs: 600_000 });
    for (let m = 0; m < 5; m++) cache.add(`message-${m}`, sigs(10, String(m)), m);
    expect(cache.size).toEqual({ messages: 3, signatures: 30 });
    expect(cache.get('message-0', 10).size).toBe(0);
    expect(cache.get('message-4', 10).size).toBe(10);
  });
});
