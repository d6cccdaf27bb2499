// Repetitive log lines are bounded per key and interval, and what was dropped is summarized.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogLimiter } from '../../src/util/log-limiter.js';

afterEach(() => void vi.useRealTimers());

describe('LogLimiter', () => {
  it('writes max lines per key per interval, then one summary with the count when the interval ends', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const summaries: [string, number][] = [];
    const limiter = new LogLimiter({ max: 3, intervalMs: 1_000, summary: (key, n) => summaries.push([key, n]) });
    for (let i = 0; i < 100; i++) limiter.log('refused', () => lines.push(`refused ${i}`));
    limiter.log('other', () => lines.push('other'));
    expect(lines).toEqual(['refused 0', 'refused 1', 'refused 2', 'other']);
    expect(limiter.suppressed('refused')).toBe(97);
    expect(summaries).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(summaries).toEqual([['refused', 97]]);
    // A new interval writes lines again.
    limiter.log('refused', () => lines.push('again'));
    expect(lines.at(-1)).toBe('again');
  });

  it('close() writes pending summaries at once', () => {
    const summaries: [string, number][] = [];
    const limiter = new LogLimiter({ max: 1, intervalMs: 60_000, summary: (key, n) => summaries.push([key, n]) });
    for (let i = 0; i < 5; i++) limiter.log('a', () => {});
    limiter.close();
    expect(summaries).toEqual([['a', 4]]);
  });

  it('tracks a bounded number of keys, summarizing the oldest first', () => {
    const summaries: [string, number][] = [];
    const limiter = new LogLimiter({ max: 1, intervalMs: 60_000, maxKeys: 2, summary: (key, n) => summaries.push([key, n]) });
    limiter.log('a', () => {});
    limiter.log('a', () => {});
    limiter.log('b', () => {});
    limiter.log('c', () => {});
    expect(summaries).toEqual([['a', 1]]);
    limiter.close();
  });
});
