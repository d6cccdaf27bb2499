// `node --import tsx bench/rss-chart.ts FILE.json [--bound-mb MB]`: the service's resident memory
// over the timed runs of a quorum bench report (rssTimelineMb), one line per strategy, as
// FILE-rss.svg next to it; with --bound-mb, the bound docs/performance.md states as a dashed line.
import { readFileSync, writeFileSync } from 'node:fs';
import { BenchArgsError, parseOrExit } from './args.js';
import type { BenchReport } from './harness.js';
import { rssChartOf, rssChartPath } from './report.js';

const USAGE = 'usage: node --import tsx bench/rss-chart.ts FILE.json [--bound-mb MB]';

function parse(argv: string[]): { json: string; boundMb: number | undefined } {
  let json: string | undefined;
  let boundMb: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--bound-mb') {
      const raw = argv[++i];
      if (raw === undefined || !/^\d+$/.test(raw)) throw new BenchArgsError('--bound-mb', `must be a whole number of MB, got '${raw ?? ''}'`);
      boundMb = Number(raw);
    } else if (arg.startsWith('--')) {
      throw new BenchArgsError(arg, 'unknown flag');
    } else if (json === undefined) {
      json = arg;
    } else {
      throw new BenchArgsError(arg, 'only one report at a time');
    }
  }
  if (json === undefined) throw new BenchArgsError('FILE.json', 'the report to chart is missing');
  return { json, boundMb };
}

const { json, boundMb } = parseOrExit(parse, USAGE);
const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
writeFileSync(rssChartPath(json), rssChartOf(report, boundMb));
process.stderr.write(`wrote ${rssChartPath(json)}\n`);
