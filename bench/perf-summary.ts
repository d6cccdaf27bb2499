// `node --import tsx bench/perf-summary.ts --json FILE [--top N]`: the service's CPU per
// aggregation by thread and by what it ran, from the perf recordings of a `npm run bench -- …
// --perf DIR --json FILE` run, each strategy beside the floor's (perf-profile.ts says how a
// sample is named). Needs Debian's linux-perf (`perf inject`, `perf script`) on the machine that
// recorded.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import type { BenchReport } from './harness.js';
import { comparePerf, differenceSplit, parsePerfScript, summarizePerf, totalMs, type PerfSummary } from './perf-profile.js';

const USAGE = 'usage: node --import tsx bench/perf-summary.ts --json BENCH.json [--top N]';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const run = promisify(execFile);

/**
 * The recording with its JIT code named: `perf inject --jit` reads the service's jitdump (the
 * recording names it) and writes each code object as a small jitted-PID-N.so beside it. Made
 * once per recording.
 */
async function injected(file: string): Promise<string> {
  const out = `${file}.jit`;
  if (!existsSync(out)) await run('perf', ['inject', '--jit', '-i', file, '-o', out], { maxBuffer: 64 << 20 });
  return out;
}

async function summaryOf(file: string, aggregations: number): Promise<{ summary: PerfSummary; namedJs: boolean }> {
  const { stdout } = await run('perf', ['script', '-i', await injected(file), '-F', 'pid,tid,period,ip,sym,dso'], { maxBuffer: 2 ** 31 - 1 });
  const samples = parsePerfScript(stdout);
  const namedJs = samples.some((s) => s.frames.some((f) => f.symbol.startsWith('JS:')));
  return { summary: summarizePerf(samples, aggregations, ROOT), namedJs };
}

function table(title: string, rows: { key: string; values: number[] }[], names: string[]): string {
  const head = `| ${title} | ${names.join(' | ')} |\n|${'---|'.repeat(names.length + 1)}`;
  return [head, ...rows.map((r) => `| ${r.key} | ${r.values.map((v) => v.toFixed(2)).join(' | ')} |`)].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'string' }, top: { type: 'string', default: '25' } } });
  if (!values.json) throw new Error(USAGE);
  const top = Number(values.top);
  if (!Number.isInteger(top) || top < 1) throw new Error(`--top takes a positive integer, got '${values.top}'\n${USAGE}`);
  const report = JSON.parse(readFileSync(values.json, 'utf8')) as BenchReport;
  const recorded = report.strategies.flatMap((name) => {
    const s = report[name];
    return s?.service.perfData ? [{ name, file: s.service.perfData, aggregations: s.aggregations }] : [];
  });
  if (recorded.length === 0) throw new Error(`${values.json} has no perf recordings: run the bench with --perf DIR`);
  const summaries = await Promise.all(recorded.map((r) => summaryOf(r.file, r.aggregations)));
  if (summaries.some((s) => !s.namedJs)) process.stderr.write('note: some recording has no named JavaScript frames (the jit-PID.dump beside it is gone?): JS counts as native: other\n');
  const names = recorded.map((r) => `\`${r.name}\``);
  const floorAt = recorded.findIndex((r) => r.name === 'floor');
  // The first other strategy gets a difference column against the floor, when both were recorded.
  const versus = floorAt >= 0 && recorded.length > 1 ? { strategy: floorAt === 0 ? 1 : 0, floor: floorAt } : undefined;
  const columns = versus ? [...names, `\`${recorded[versus.strategy]!.name}\` − \`floor\``] : names;
  const rowsOf = (pick: (s: PerfSummary) => Record<string, number>, limit: number): { key: string; values: number[] }[] => {
    const maps = summaries.map((s) => pick(s.summary));
    const order = comparePerf(maps[versus?.strategy ?? 0]!, versus ? maps[versus.floor]! : {}).map((r) => r.key);
    return order.slice(0, limit).map((key) => {
      const values = maps.map((m) => m[key] ?? 0);
      return { key, values: versus ? [...values, values[versus.strategy]! - values[versus.floor]!] : values };
    });
  };
  const total = (s: PerfSummary): Record<string, number> => ({ 'all threads': totalMs(s) });
  process.stdout.write(`On-CPU time of the service per aggregation, ms (perf cpu-clock samples of every thread over the timed runs): ${values.json}\n\n`);
  process.stdout.write(`${table('thread', [...rowsOf(total, 1), ...rowsOf((s) => s.byRole, 20)], columns)}\n\n`);
  process.stdout.write(`${table('thread · what it ran', rowsOf((s) => s.byCategory, top), columns)}\n`);
  if (floorAt < 0) return;
  const others = recorded.map((r, i) => ({ name: r.name, i })).filter((r) => r.i !== floorAt);
  const splits = others.map((r) => differenceSplit(summaries[r.i]!.summary, summaries[floorAt]!.summary));
  const parts: [string, keyof (typeof splits)[number]][] = [
    ['all threads', 'total'],
    ['blst on the BLS threads (the cryptography)', 'blst'],
    ['the BLS threads beyond blst (task hand-offs, messages, N-API, their JavaScript)', 'blsThreadsBeyondBlst'],
    ["main thread, the verification's own paths (verification.ts, the BLS pool, piscina, messages to the workers, the fewest signers)", 'mainVerificationPaths'],
    ['main thread, the work both do (peers, collection, HTTP), costing more or less', 'mainSharedWork'],
    ['JIT compiler, any thread', 'jitCompiler'],
    ['GC, any thread', 'gc'],
    ['the rest', 'other'],
  ];
  const splitColumns = others.map((r) => `\`${r.name}\` − \`floor\``);
  process.stdout.write(`\n${table('above the floor', parts.map(([key, field]) => ({ key, values: splits.map((s) => s[field]) })), splitColumns)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
