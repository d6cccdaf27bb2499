// bench/fold-batches.ts as a user runs it: a real BLS pool, its table and JSON, and its flags.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'fold-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'bench/fold-batches.ts', ...args], { timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('bench/fold-batches.ts', () => {
  it('folds 560 signatures in folds of each size asked, checks the aggregate, and reports CPU per aggregation', async () => {
    const json = join(dir, 'folds.json');
    const { code, stdout, stderr } = await run(['--batches', '560,8', '--repeats', '1', '--json', json]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^\| 560 \| 1 \| [\d.]+ \| [\d.]+ \|$/m);
    expect(stdout).toMatch(/^\| 8 \| 70 \| [\d.]+ \| [\d.]+ \|$/m);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { signatures: number; repeats: number; rows: { batch: number; folds: number; cpuMsPerAggregation: number }[] };
    expect(report).toMatchObject({ signatures: 560, repeats: 1 });
    expect(report.rows.map((r) => [r.batch, r.folds])).toEqual([
      [560, 1],
      [8, 70],
    ]);
    for (const r of report.rows) expect(r.cpuMsPerAggregation).toBeGreaterThan(0);
  });

  it('splits a task from its hand-off: the worker\'s code run in this thread, and an empty task to a worker and back', async () => {
    const json = join(dir, 'split.json');
    const { code, stdout, stderr } = await run(['--batches', '560', '--repeats', '1', '--uncompressed', '--json', json]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^In this thread, no hand-off: a fold of all 560 [\d.]+ ms, with its final check [\d.]+ ms of CPU$/m);
    expect(stdout).toMatch(/^A task hand-off \(an empty task to a worker and back, one to each of 2 threads at once\): [\d.]+ ms of CPU each/m);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { form: string; inThread: { foldMs: number; foldAndCheckMs: number }; handOff: { cpuMs: number; wallMs: number } };
    expect(report.form).toBe('uncompressed');
    // Timings only (one repeat is too few to compare them): each was measured and is positive.
    expect(report.inThread.foldMs).toBeGreaterThan(0);
    expect(report.inThread.foldAndCheckMs).toBeGreaterThan(0);
    expect(report.handOff.cpuMs).toBeGreaterThan(0);
    expect(report.handOff.wallMs).toBeGreaterThan(0);
  });

  it.each([
    [['--batches', '0,8'], /--batches takes positive integers/],
    [['--repeats', 'two'], /--repeats takes a positive integer/],
    [['--bogus'], /Unknown option '--bogus'/],
  ])('refuses %j with exit 2 and the usage', async (args, why) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(why);
    expect(stderr).toMatch(/^usage: node --import tsx bench\/fold-batches\.ts/m);
  });
});
