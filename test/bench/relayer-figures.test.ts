// What bench/relayer.ts's figures mean, on samples whose answers are known: latency from each
// clock, the rate delivered against the rate offered, gas, undelivered and reverted messages, and
// the relayer's own counters read from its /metrics text over a window.
import { describe, expect, it } from 'vitest';
import { directionFigures, metricDelta, parseMetrics, reasonsInLog, type MessageSample } from '../../bench/relayer-figures.js';

/** Message i sent at 1 s + i × 500 ms, in a block 200 ms later, seen 100 ms after that, delivered `latency(i)` after its block. */
function samples(n: number, latency: (i: number) => number | undefined, gas = (i: number) => 300_000 + i): MessageSample[] {
  return Array.from({ length: n }, (_, i) => {
    const submittedAtMs = 1_000 + i * 500;
    const sourceBlockTimeMs = submittedAtMs + 200;
    const l = latency(i);
    return {
      messageId: `0x${i}`,
      submittedAtMs,
      sendSeenAtMs: sourceBlockTimeMs + 100,
      sourceBlockTimeMs,
      ...(l === undefined ? {} : { delivery: { txHash: `0xd${i}`, blockTimeMs: sourceBlockTimeMs + l, gasUsed: gas(i), gasLimit: 600_000, reverted: i === 3 } }),
    };
  });
}

describe('directionFigures', () => {
  it('measures latency from the source block and from the send being seen, and nearest-rank percentiles', () => {
    const f = directionFigures(samples(100, (i) => 1_000 + i * 10));
    expect(f.latencyFromSourceBlockMs).toEqual({ min: 1_000, p50: 1_490, p90: 1_890, p99: 1_980, max: 1_990, mean: 1_495 });
    expect(f.latencyFromSendSeenMs?.p50).toBe(1_390);
    expect(f.gasPerDelivery).toMatchObject({ min: 300_000, p50: 300_049, max: 300_099, mean: 300_050 });
    expect(f.gasLimitMean).toBe(600_000);
    expect(f.revertedDeliveries).toBe(1);
  });

  it('gives the offered rate and the delivered rate between the first and the last delivery', () => {
    // Offered: 2/s. Delivered: a relayer that keeps up delivers at the same rate...
    expect(directionFigures(samples(61, () => 2_000))).toMatchObject({ offeredPerSecond: 2, deliveredPerSecond: 2 });
    // ...and one whose latency grows by 500 ms a message delivers at 1/s.
    expect(directionFigures(samples(61, (i) => 2_000 + i * 500))).toMatchObject({ offeredPerSecond: 2, deliveredPerSecond: 1 });
  });

  it('counts undelivered messages and leaves them out of the latency', () => {
    const f = directionFigures(samples(10, (i) => (i < 4 ? 1_000 : undefined)));
    expect(f).toMatchObject({ sent: 10, delivered: 4, undelivered: 6 });
    expect(f.latencyFromSourceBlockMs?.max).toBe(1_000);
  });

  it('leaves out a figure with nothing to measure rather than inventing one', () => {
    const none = directionFigures(samples(3, () => undefined));
    expect(none).toMatchObject({ delivered: 0, deliveredPerSecond: undefined, latencyFromSourceBlockMs: undefined, gasPerDelivery: undefined, gasLimitMean: undefined });
    // All delivered in one block: no time between the first and the last delivery to divide by.
    expect(directionFigures(samples(2, (i) => 1_000 - i * 500)).deliveredPerSecond).toBeUndefined();
  });
});

describe("the relayer's /metrics over a window", () => {
  const route = 'A->B';
  const text = (delivered: number, sum: number, count: number): string =>
    [
      '# HELP warpgate_relayer_messages_total Messages that reached an outcome',
      '# TYPE warpgate_relayer_messages_total counter',
      `warpgate_relayer_messages_total{route="${route}",outcome="delivered"} ${delivered}`,
      `warpgate_relayer_messages_total{route="${route}",outcome="skipped"} 1`,
      `warpgate_relayer_messages_total{route="B->A",outcome="delivered"} 7`,
      `warpgate_relayer_delivery_seconds_bucket{le="+Inf",route="${route}"} ${count}`,
      `warpgate_relayer_delivery_seconds_sum{route="${route}"} ${sum}`,
      `warpgate_relayer_delivery_seconds_count{route="${route}"} ${count}`,
      'process_cpu_seconds_total 12.5',
    ].join('\n');

  it('parses series with their labels, and takes the difference of one route and outcome', () => {
    const before = parseMetrics(text(2, 4.5, 2));
    const after = parseMetrics(text(62, 124.5, 62));
    expect(after.get('process_cpu_seconds_total')).toBe(12.5);
    expect(metricDelta(before, after, 'warpgate_relayer_messages_total', { route, outcome: 'delivered' })).toBe(60);
    expect(metricDelta(before, after, 'warpgate_relayer_messages_total', { route })).toBe(60);
    expect(metricDelta(before, after, 'warpgate_relayer_delivery_seconds_sum', { route }) / metricDelta(before, after, 'warpgate_relayer_delivery_seconds_count', { route })).toBe(2);
    // A series absent before counts from zero.
    expect(metricDelta(new Map(), after, 'warpgate_relayer_messages_total', { outcome: 'delivered' })).toBe(69);
  });
});

describe("the relayer's log over a window", () => {
  it('counts the lines with a reason inside the window by message and first clause, numbers as N', () => {
    const line = (time: number, msg: string, reason?: string): string => JSON.stringify({ level: 40, time, msg, ...(reason ? { reason } : {}) });
    const lines = [
      line(50, 'relayer: delivery attempt failed', 'quorum not reached: signed weight 10 of 60; validators 3'),
      line(100, 'relayer: delivery attempt failed', 'quorum not reached: signed weight 10 of 60; validators 3'),
      line(150, 'relayer: delivery attempt failed', 'quorum not reached: signed weight 40 of 60; validators 3'),
      line(160, 'avalanchego validator refused to sign', 'failed to parse: read 46 provided 704'),
      line(170, 'relayer: delivered'),
      'not json (node: MaxListenersExceededWarning)',
      line(250, 'relayer: delivery attempt failed', 'after the window'),
    ];
    expect(reasonsInLog(lines, 100, 200)).toEqual({
      'relayer: delivery attempt failed: quorum not reached: signed weight N of N': 2,
      'avalanchego validator refused to sign: failed to parse: read N provided N': 1,
    });
  });
});
