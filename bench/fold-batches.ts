// What a fold's worker hand-off costs against the signatures it carries: the BLS pool folds one
// aggregation's worth of signatures (560, about what 1,000 validators' 67% takes on the bench's
// weights) in batches of N, each fold a task with the previous sum as its base, then makes the
// final check; reported as CPU of the whole process (main thread and workers) per aggregation.
// Behind verification.ts minimumFold. Then, to split a task's cost from its hand-off: the whole
// fold, and the fold with its final check, run in this thread by the worker's own code (no
// hand-off), and a task that does nothing (`ping`) handed to a worker and back.
//   node --import tsx bench/fold-batches.ts [--batches 560,64,32,16,8,4,2,1] [--repeats 20] [--uncompressed] [--json FILE]
// --uncompressed: the 192-byte form warpgate's own signers send (peers/frames.ts), no square roots.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadBackend } from '../src/bls/index.js';
import { BlsPool } from '../src/bls-pool/pool.js';
import { packBatch } from '../src/bls-pool/messages.js';
import runWorkerTask from '../src/bls-pool/worker.js';
import { round } from './stats.js';

const SIGNATURES = 560;

const USAGE = 'usage: node --import tsx bench/fold-batches.ts [--batches 560,64,32,16,8,4,2,1] [--repeats 20] [--uncompressed] [--json FILE]';

function options(): { batches: number[]; repeats: number; uncompressed: boolean; json: string | undefined } {
  let values;
  try {
    ({ values } = parseArgs({
      options: { batches: { type: 'string', default: '560,64,32,16,8,4,2,1' }, repeats: { type: 'string', default: '20' }, uncompressed: { type: 'boolean', default: false }, json: { type: 'string' } },
    }));
  } catch (err) {
    return refuse(err instanceof Error ? err.message : String(err));
  }
  const batches = values.batches.split(',').map(Number);
  const repeats = Number(values.repeats);
  if (batches.some((b) => !Number.isInteger(b) || b < 1)) return refuse(`--batches takes positive integers separated by commas, got '${values.batches}'`);
  if (!Number.isInteger(repeats) || repeats < 1) return refuse(`--repeats takes a positive integer, got '${values.repeats}'`);
  return { batches, repeats, uncompressed: values.uncompressed, json: values.json };
}

function refuse(why: string): never {
  console.error(`${why}\n${USAGE}`);
  process.exit(2);
}

const { batches, repeats, uncompressed, json } = options();

const bls = loadBackend('blst');
const message = new TextEncoder().encode('fold-batches: one message, many signers');
const keys = Array.from({ length: SIGNATURES }, () => bls.generateSecretKey());
const pks = keys.map((sk) => bls.publicKeyOf(sk).bytes);
const sigs = keys.map((sk) => {
  const sig = bls.sign(sk, message);
  return uncompressed ? bls.signatureUncompressed(sig) : sig.bytes;
});
const pool = new BlsPool({ backend: 'blst', threads: 2 });
await pool.warm();

/** One aggregation: folds of `batch` signatures, one after the other, then the final check. */
async function aggregation(batch: number): Promise<void> {
  let base: Uint8Array[] = [];
  for (let i = 0; i < SIGNATURES; i += batch) {
    const folded = await pool.fold({ sigs: sigs.slice(i, i + batch), pks: pks.slice(i, i + batch), base });
    base = [folded.partial!];
  }
  if (!(await pool.finalize({ message, parts: base })).valid) throw new Error('the aggregate did not verify');
}

// Warm the threads and the JIT on every path first, so that the first row is not the slowest.
for (const batch of [SIGNATURES, 8]) for (let r = 0; r < 3; r++) await aggregation(batch);
const loadBefore = loadavg()[0] ?? 0;
const rows: { batch: number; folds: number; cpuMsPerAggregation: number; wallMsPerAggregation: number }[] = [];
for (const batch of batches) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let r = 0; r < repeats; r++) await aggregation(batch);
  const used = process.cpuUsage(cpu);
  rows.push({ batch, folds: Math.ceil(SIGNATURES / batch), cpuMsPerAggregation: round((used.user + used.system) / 1000 / repeats, 2), wallMsPerAggregation: round((performance.now() - started) / repeats, 2) });
}

/** CPU ms of this process per call of `work`, and wall ms, over `times` calls (after as many to warm up). */
async function costOf(times: number, work: () => unknown): Promise<{ cpuMs: number; wallMs: number }> {
  for (let i = 0; i < times; i++) await work();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < times; i++) await work();
  const used = process.cpuUsage(cpu);
  return { cpuMs: round((used.user + used.system) / 1000 / times, 3), wallMs: round((performance.now() - started) / times, 3) };
}
// The worker's code in this thread: what a task costs without its hand-off.
const whole = { sigs, pks };
const inThread = {
  foldMs: (await costOf(repeats, () => runWorkerTask({ kind: 'fold', jobs: [packBatch(whole)] }))).cpuMs,
  foldAndCheckMs: (await costOf(repeats, () => runWorkerTask({ kind: 'foldAndCheck', jobs: [{ ...packBatch(whole), message }] }))).cpuMs,
};
// A task that does nothing, to a worker and back: the hand-off alone, both threads. warm() sends
// one to each thread at once.
const warmed = await costOf(repeats * 50, () => pool.warm());
const handOff = { cpuMs: round(warmed.cpuMs / pool.threads, 3), wallMs: warmed.wallMs };
await pool.close();

const machine = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, loadAverage1m: { before: loadBefore, after: loadavg()[0] ?? 0 } };
console.log(`${SIGNATURES} ${uncompressed ? 'uncompressed' : 'compressed'} signatures per aggregation, blst, 2 worker threads, ${repeats} aggregations per row; ${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverage1m.before.toFixed(2)} → ${machine.loadAverage1m.after.toFixed(2)}\n`);
console.log('| signatures per fold | folds | CPU ms / aggregation (all threads) | wall ms / aggregation |');
console.log('|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.batch} | ${r.folds} | ${r.cpuMsPerAggregation.toFixed(1)} | ${r.wallMsPerAggregation.toFixed(1)} |`);
console.log(`\nIn this thread, no hand-off: a fold of all ${SIGNATURES} ${inThread.foldMs.toFixed(2)} ms, with its final check ${inThread.foldAndCheckMs.toFixed(2)} ms of CPU`);
console.log(`A task hand-off (an empty task to a worker and back, one to each of ${pool.threads} threads at once): ${handOff.cpuMs.toFixed(3)} ms of CPU each, both sides; ${handOff.wallMs.toFixed(3)} ms wall for the ${pool.threads}`);
if (json) writeFileSync(json, `${JSON.stringify({ machine, signatures: SIGNATURES, form: uncompressed ? 'uncompressed' : 'compressed', repeats, rows, inThread, handOff }, null, 2)}\n`);
