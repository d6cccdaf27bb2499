// `npm run bench -- [flags]`: the quorum-latency benchmark (flags in args.ts, method in
// harness.ts). Progress goes to stderr; stdout gets the markdown table; --json FILE writes the
// report and FILE's .svg sibling the latency CDF chart.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { USAGE, parseArgs, parseOrExit } from './args.js';
import { runBench, type BenchReport } from './harness.js';
import { chartOf, chartPath, markdownTable } from './report.js';
import { BenchScenarioError } from './scenario.js';

async function main(): Promise<void> {
  const options = parseOrExit(parseArgs, USAGE);
  if (options.cpuProfileDir) mkdirSync(options.cpuProfileDir, { recursive: true });
  if (options.perfDir) mkdirSync(options.perfDir, { recursive: true });
  let report: BenchReport;
  try {
    report = await runBench(options, (line) => process.stderr.write(`${line}\n`));
  } catch (err) {
    if (err instanceof BenchScenarioError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  process.stdout.write(`${markdownTable(report)}\n`);
  if (options.json) {
    mkdirSync(dirname(options.json), { recursive: true });
    writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(chartPath(options.json), chartOf(report));
    process.stderr.write(`wrote ${options.json} and ${chartPath(options.json)}\n`);
  }
}

await main();
