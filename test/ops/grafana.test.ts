// docs/grafana/warpgate.json imports as it is (its datasource is a variable, nothing to map) and
// every PromQL expression in it names only metrics a running service exports: the service is
// started and its /metrics read, histogram families standing for their _bucket, _sum and _count
// series. The dashboard shows each thing operators were promised (latency quantiles, outcomes,
// stake against quorum, peer answers, cache hits, P-Chain calls, the worker queue, event-loop lag,
// proxy traffic).
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startService, type Service } from '../../src/service/start.js';
import { ROOT } from './staging.js';

interface Target {
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Target[];
  gridPos: { x: number; y: number; w: number; h: number };
}
interface Dashboard {
  title: string;
  uid: string;
  schemaVersion: number;
  __inputs?: unknown;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown; definition?: string; datasource?: { uid: string } }[] };
}

const dashboard = JSON.parse(readFileSync(`${ROOT}docs/grafana/warpgate.json`, 'utf8')) as Dashboard;
const expressions = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

/** The metric names a PromQL expression reads: not functions, aggregations, keywords, labels, strings, numbers or Grafana variables. */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/(^|[^\w:])\d+(\.\d+)?(e[+-]?\d+)?/gi, '$1 ');
  const keywords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'and', 'or', 'unless', 'inf', 'nan']);
  const names: string[] = [];
  for (const m of stripped.matchAll(/[a-zA-Z_:][\w:]*/g)) {
    const rest = stripped.slice(m.index + m[0].length).trimStart();
    if (rest.startsWith('(') || keywords.has(m[0].toLowerCase())) continue;
    names.push(m[0]);
  }
  return names;
}

/** Every series name the exposition can hold: each family, histograms and summaries with their suffixes. */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name! + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name! + s);
  }
  return names;
}

let service: Service;
let exported: Set<string>;

beforeAll(async () => {
  service = await startService(loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', 'workers.threads': 1 } }), { logger: pino({ level: 'silent' }) });
  const res = await fetch(`${service.url}/metrics`, { signal: AbortSignal.timeout(10_000) });
  exported = exportedNames(await res.text());
}, 60_000);

afterAll(async () => {
  await service?.close();
});

describe('the Grafana dashboard (docs/grafana/warpgate.json)', () => {
  it('imports as is: a Prometheus datasource variable that every panel and query uses, unique ids, no overlapping panels', () => {
    expect(dashboard.__inputs).toBeUndefined();
    expect(dashboard).toMatchObject({ title: 'warpgate', uid: 'warpgate' });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const variable = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(variable).toMatchObject({ name: 'datasource', query: 'prometheus' });
    const graphs = dashboard.panels.filter((p) => p.type !== 'row');
    for (const p of graphs) {
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) expect(t.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Set<string>();
    for (const { gridPos: g, title } of dashboard.panels) {
      expect(g.x + g.w, title).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++) for (let y = g.y; y < g.y + g.h; y++) {
        expect(cells.has(`${x},${y}`), `${title} overlaps another panel`).toBe(false);
        cells.add(`${x},${y}`);
      }
    }
  });

  it('reads only metrics the service exports', () => {
    expect(expressions.length).toBeGreaterThan(10);
    const used = new Set(expressions.flatMap(metricNames));
    for (const v of dashboard.templating.list) if (v.definition) for (const [, name] of v.definition.matchAll(/label_values\((\w+)/g)) used.add(name!);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
    // The reading itself: it finds the metric in each kind of expression, and would catch a wrong name.
    expect(metricNames('histogram_quantile(0.99, sum by (le, method) (rate(warpgate_pchain_call_seconds_bucket{instance=~"$instance"}[$__rate_interval])))')).toEqual(['warpgate_pchain_call_seconds_bucket']);
    expect(metricNames('sum(rate(a_total{result="hit"}[5m])) / sum(rate(b_total[1e3s])) > bool 0.5')).toEqual(['a_total', 'b_total']);
    expect(exported.has('warpgate_aggregation_seconds_bucket')).toBe(true);
    expect(exported.has('warpgate_no_such_metric_total')).toBe(false);
  });

  it('shows what operators were promised', () => {
    const used = new Set(expressions.flatMap(metricNames));
    for (const name of [
      'warpgate_aggregation_seconds_bucket',
      'warpgate_aggregation_seconds_count',
      'warpgate_connected_stake_percent',
      'warpgate_readiness_quorum_percent',
      'warpgate_signature_responses_total',
      'warpgate_signature_cache_total',
      'warpgate_pchain_call_seconds_bucket',
      'warpgate_pchain_call_errors_total',
      'warpgate_worker_queue_depth',
      'warpgate_nodejs_eventloop_lag_p99_seconds',
      'warpgate_proxy_requests_total',
    ]) {
      expect(used.has(name), name).toBe(true);
    }
    expect(expressions.some((e) => e.startsWith('histogram_quantile(0.99') && e.includes('warpgate_aggregation_seconds_bucket'))).toBe(true);
  });
});
