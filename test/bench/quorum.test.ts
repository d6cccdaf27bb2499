// The benchmark end to end through its npm entry (bench/quorum.ts): a tiny network, a few runs,
// every strategy (the floor included), and the JSON, table and chart it promises.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packagePath, tsExecArgv } from '../../src/util/ts-runtime.js';
import { destinationGas } from '../../bench/warp-gas.js';

const dir = mkdtempSync(join(tmpdir(), 'warpgate-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runBench(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...tsExecArgv(), packagePath('bench/quorum.ts'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bench did not finish within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const percentiles = { p50: expect.any(Number), p90: expect.any(Number), p99: expect.any(Number) };

describe('npm run bench', () => {
  it('measures every strategy on the same delays and writes the JSON, the table and the chart', async () => {
    const json = join(dir, 'results', 'tiny.json');
    const { code, stdout, stderr } = await runBench(
      ['--validators', '8', '--runs', '3', '--warmup', '1', '--concurrency', '2', '--latency', 'lognormal:15:0.3', '--json', json],
      140_000,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/\| `warpgate` \|/);
    expect(stdout).toMatch(/\| `warpgateAllSigners` \|/);
    expect(stdout).toMatch(/\| `perSignatureVerify` \|/);
    expect(stdout).toMatch(/\| `floor` \|/);
    // The floor's answers carry no real aggregate: the run says it did not verify them.
    expect(stderr).toMatch(/^floor: signature verification SKIPPED/m);
    expect(stderr).not.toMatch(/^(warpgate|warpgateAllSigners|perSignatureVerify): signature verification SKIPPED/m);
    expect(stdout).toMatch(/^`floor`: signature verification skipped\./m);
    expect(stdout).toMatch(/^Overhead above the floor, `warpgate` − `floor`: -?[\d.]+ ms p50, -?[\d.]+ ms p99/m);
    expect(stdout).toMatch(/^By the service's clock \(p50\), `warpgate` − `floor`: signers' weight read in -?[\d.]+ ms later, the service's own time \(checks, decision\) -?[\d.]+ ms longer/m);
    expect(stdout).toMatch(/^CPU per aggregation: `warpgate` \/ `floor` = [\d.]+x/m);
    expect(stdout).toMatch(/^Throughput: `warpgate` \/ `floor` = [\d.]+x/m);
    expect(stdout).toMatch(/^Fewest signers: `warpgate` put [\d.]+ signers per message of the [\d.]+ signatures ready at its final checks on the same runs/m);
    expect(stdout).toMatch(/^Final checks: `warpgate` made \d+ in \d+ worker tasks/m);

    const report = JSON.parse(readFileSync(json, 'utf8')) as Record<string, any>;
    expect(report).toMatchObject({
      validators: 8, quorumPercentage: 67, runs: 3, backend: 'blst', concurrency: 2, weights: 'skewed',
      strategies: ['warpgate', 'warpgateAllSigners', 'perSignatureVerify', 'floor'],
    });
    // Every aggregation ends in at least one final check; a task holds one or more.
    expect(report.warpgate.finalChecks.checks).toBeGreaterThanOrEqual(report.warpgate.aggregations);
    expect(report.warpgate.finalChecks.tasks).toBeGreaterThanOrEqual(1);
    expect(report.warpgate.finalChecks.tasks).toBeLessThanOrEqual(report.warpgate.finalChecks.checks);
    // The derived figures are those of the strategies in this very report.
    expect(report.derived.cpuWarpgateOverFloor).toBeCloseTo(report.warpgate.cpuMsPerAggregation / report.floor.cpuMsPerAggregation, 1);
    expect(report.derived.overheadAboveFloorMs.p50).toBeCloseTo(report.warpgate.overheadMs.p50 - report.floor.overheadMs.p50, 1);
    expect(report.derived.overheadAboveFloorSplitMs).toEqual({
      signersInLater: expect.closeTo(report.warpgate.service.signersInMs.p50 - report.floor.service.signersInMs.p50, 1),
      serviceOwn: expect.closeTo(report.warpgate.service.ownMs.p50 - report.floor.service.ownMs.p50, 1),
    });
    for (const strategy of ['warpgate', 'warpgateAllSigners', 'perSignatureVerify', 'floor']) {
      const s = report[strategy];
      expect(s.answersVerified).toBe(strategy !== 'floor');
      expect(s).toMatchObject({
        latencyMs: percentiles,
        idealMs: percentiles,
        overheadMs: percentiles,
        cpuMsPerAggregation: expect.any(Number),
        throughputPerSec: expect.any(Number),
        failures: 0,
        aggregations: 3,
      });
      expect(s.cpuMsPerAggregation).toBeGreaterThan(0);
      // The main thread's share, read from /proc on Linux (CI's machine).
      if (process.platform === 'linux') expect(s.mainThreadCpuMsPerAggregation).toBeGreaterThanOrEqual(0);
      expect(s.signerHostsCpuMsPerAggregation).toBeGreaterThan(0);
      expect(s.throughputPerSec).toBeGreaterThan(0);
      expect(s.samples).toHaveLength(3);
      for (const run of s.samples) {
        // Nobody can answer before the weight that completes quorum has arrived.
        expect(run.idealMs).toBeLessThanOrEqual(run.latencyMs);
        expect(run.overheadMs).toBeCloseTo(run.latencyMs - run.idealMs, 2);
        expect(run.signedWeightPercent).toBeGreaterThanOrEqual(67);
        expect(run.destinationGas).toEqual(destinationGas(run.signedMessageBytes, run.signers));
      }
      // The service's clock: each aggregation's time inside the client's, split at the signers' weight.
      expect(s.service.signersInMs).toMatchObject(percentiles);
      expect(s.service.ownMs.p50).toBeGreaterThanOrEqual(0);
      expect(s.service.signersInMs.p99).toBeLessThanOrEqual(s.latencyMs.p99);
      expect(s.signersPerMessage.min).toBeLessThanOrEqual(s.signersPerMessage.max);
      // Each message is asked once (no cache hits): every signer in it answered one of this run's
      // requests, and no aggregation asks a validator twice.
      const requests = Object.values(s.service.requestsPerAggregation as Record<string, number>).reduce((a, n) => a + n, 0);
      expect(s.service.requestsPerAggregation.signature).toBeGreaterThanOrEqual(s.signersPerMessage.mean);
      expect(requests).toBeLessThanOrEqual(8);
      expect(s.destinationGasPerMessage.granite).toBeGreaterThan(125_000);
      // Never fewer ready than put in the message; every ready one in it without the fewest signers.
      expect(s.fewestSigners.readyPerMessage).toBeGreaterThanOrEqual(s.signersPerMessage.mean);
      if (strategy === 'warpgateAllSigners') expect(s.fewestSigners).toMatchObject({ readyPerMessage: s.signersPerMessage.mean, subsetChecks: 0 });
      expect(s.latencyMs.p50).toBeLessThanOrEqual(s.latencyMs.p99);
    }
    // Same messages, same delays: the ideal is the same for both.
    expect(report.perSignatureVerify.idealMs).toEqual(report.warpgate.idealMs);
    expect(report.warpgateAllSigners.idealMs).toEqual(report.warpgate.idealMs);
    expect(report.floor.idealMs).toEqual(report.warpgate.idealMs);
    // The floor asked the validators over the same transport: the same answers came back.
    expect(report.floor.service.responses.valid).toBeGreaterThan(0);
    const svg = readFileSync(join(dir, 'results', 'tiny.svg'), 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg.match(/<path /g)).toHaveLength(5);
  }, 150_000);

  it('--transport p2p --strategies warpgate,floor --io-shards 2: the service dials simulated avalanchego nodes from two shards, only those two strategies are measured, and warpgate\'s messages verify', async () => {
    const json = join(dir, 'results', 'tiny-p2p.json');
    const { code, stdout, stderr } = await runBench(
      ['--transport', 'p2p', '--validators', '6', '--byzantine', '20', '--runs', '2', '--warmup', '1', '--latency', 'lognormal:15:0.3', '--strategies', 'floor,warpgate', '--workers', '1', '--io-shards', '2', '--json', json],
      100_000,
    );
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/6\/6 avalanchego nodes connected/);
    expect(stderr).toMatch(/^warpgate: every signed message verified as avalanchego would$/m);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Record<string, any>;
    expect(report).toMatchObject({ transport: 'p2p', validators: 6, strategies: ['warpgate', 'floor'], workers: 1, ioShards: 2 });
    expect(stdout).toMatch(/, 1 BLS worker thread, 2 p2p I\/O shards, /);
    expect(report).not.toHaveProperty('perSignatureVerify');
    expect(report).not.toHaveProperty('warpgateAllSigners');
    expect(stdout).not.toMatch(/\| `perSignatureVerify` \|/);
    expect(stdout).not.toMatch(/perSignatureVerify/);
    for (const strategy of ['warpgate', 'floor']) {
      // The harness verifies warpgate's signed messages against the validator set before reporting
      // them, and reads the floor's signers and weight; any bad one would have failed the run.
      expect(report[strategy]).toMatchObject({ failures: 0, aggregations: 2, answersVerified: strategy === 'warpgate' });
      expect(report[strategy].signerHostsCpuMsPerAggregation).toBeGreaterThan(0);
    }
  }, 110_000);

  it('exits 2 with the usage for a bad flag, before starting anything', async () => {
    const { code, stderr } = await runBench(['--validators', '1'], 30_000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--validators: must be from 2/);
    expect(stderr).toMatch(/usage: npm run bench/);
  }, 40_000);

  it('exits 2 naming an unknown strategy and the known ones', async () => {
    const { code, stderr } = await runBench(['--strategies', 'warpgate,nocrypto'], 30_000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^--strategies: unknown strategy 'nocrypto'; known: warpgate, icmServices, warpgateAllSigners, perSignatureVerify, floor$/m);
    expect(stderr).toMatch(/usage: npm run bench/);
  }, 40_000);
});
