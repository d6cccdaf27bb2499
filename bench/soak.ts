// A soak of the whole devnet as a user runs it: `warpgate devnet` in its own process, a steady
// open-loop stream of aggregations (each over a fresh message), and one validator host process
// killed every few seconds (the devnet restarts it). Every sample records the devnet process's
// memory (RSS from /proc, V8 heap and external memory from its own /metrics) and what the
// requests of the interval came to. Not a CI test: it runs for as long as asked.
//   node --import tsx bench/soak.ts --minutes 30 --validators 400 --rate 5 --kill-every 90 [--sample-every 10] [--transport mixed] [--json FILE]
// The verdict compares the last third of the run with the middle third: memory that has levelled
// off grows less than --bound-mb between them (and stays under it overall past the first third).
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { cpus, totalmem } from 'node:os';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { intOption, parseArgs } from '../src/cli/args.js';
import { parseCb58Id } from '../src/warp/cb58.js';
import { bytesToHex } from '../src/warp/hex.js';
import { encodeAddressedCall } from '../src/warp/payload.js';
import { newUnsignedMessage } from '../src/warp/unsigned-message.js';
import { percentile, round } from './stats.js';
import { readProc } from './proc.js';

const { options } = parseArgs(
  process.argv.slice(2),
  {
    minutes: { type: 'string' },
    validators: { type: 'string' },
    rate: { type: 'string' },
    'kill-every': { type: 'string' },
    'sample-every': { type: 'string' },
    transport: { type: 'string' },
    'bound-mb': { type: 'string' },
    json: { type: 'string' },
  },
  'soak',
);
const minutes = intOption(options.minutes, 'minutes', 1, 24 * 60, 30);
const validators = intOption(options.validators, 'validators', 2, 5000, 400);
const rate = intOption(options.rate, 'rate', 1, 1000, 5);
const killEverySec = intOption(options['kill-every'], 'kill-every', 0, 3600, 90);
const sampleEverySec = intOption(options['sample-every'], 'sample-every', 1, 600, 10);
const boundMb = intOption(options['bound-mb'], 'bound-mb', 1, 100_000, 20);
const transport = options.transport ?? 'mixed';
const jsonFile = options.json ?? `bench/results/soak/soak-${validators}-${minutes}min.json`;
const log = (line: string): void => void process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface Sample {
  /** Seconds since the devnet was ready. */
  t: number;
  rssMb: number;
  heapUsedMb: number | null;
  heapTotalMb: number | null;
  externalMb: number | null;
  /** Signatures in the service's signature cache (status.json): what fills up to signatureCache.maxSignatures. */
  cachedSignatures: number | null;
  /** Requests answered in the interval, by status (0: no answer). */
  statuses: Record<string, number>;
  p50Ms: number | null;
  p99Ms: number | null;
  /** Requests sent and not yet answered when the sample was taken. */
  inFlight: number;
}

const mb = (bytes: number): number => round(bytes / 2 ** 20, 1);

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readProc(`/proc/${pid}/status`) ?? '');
  return m ? Number(m[1]) * 1024 : NaN;
}

/** The devnet process's children: its validator host processes. */
function children(pid: number): number[] {
  const text = readProc(`/proc/${pid}/task/${pid}/children`) ?? '';
  return text.trim().split(/\s+/).filter(Boolean).map(Number);
}

async function cachedSignatures(url: string): Promise<number | null> {
  try {
    const status = (await (await fetch(`${url}/status.json`, { signal: AbortSignal.timeout(10_000) })).json()) as { signatureCache: { signatures: number } };
    return status.signatureCache.signatures;
  } catch {
    return null;
  }
}

async function heapFromMetrics(url: string): Promise<Pick<Sample, 'heapUsedMb' | 'heapTotalMb' | 'externalMb'>> {
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const gauge = (name: string): number | null => {
      const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
      return m ? mb(Number(m[1])) : null;
    };
    return { heapUsedMb: gauge('warpgate_nodejs_heap_size_used_bytes'), heapTotalMb: gauge('warpgate_nodejs_heap_size_total_bytes'), externalMb: gauge('warpgate_nodejs_external_memory_bytes') };
  } catch {
    return { heapUsedMb: null, heapTotalMb: null, externalMb: null };
  }
}

/** The commit run: git's, or SOAK_COMMIT where the soak runs from an export without .git (a copy, so edits cannot reach a running devnet). */
function commit(): string {
  if (process.env.SOAK_COMMIT) return process.env.SOAK_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

interface DevnetInfo {
  url: string;
  networkId: number;
  blockchainId: string;
}

async function startDevnet(): Promise<{ child: ChildProcess; info: DevnetInfo }> {
  const args = ['--import', 'tsx', 'src/cli.ts', 'devnet', '--validators', String(validators), '--transport', transport, '--port', '0', '--json', '--log-level', 'warn'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const info = await new Promise<DevnetInfo>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as DevnetInfo));
    child.once('exit', (code, signal) => reject(new Error(`the devnet exited (${code ?? signal}) before it was ready`)));
  });
  return { child, info };
}

log(`${validators} validators (${transport}), ${rate} requests/s for ${minutes} min, a validator host killed every ${killEverySec} s; ${cpus().length} CPUs`);
const startedAt = performance.now();
const { child, info } = await startDevnet();
const pid = child.pid!;
log(`devnet ${pid} ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s at ${info.url}`);

const chainId = parseCb58Id(info.blockchainId, 'blockchainId');
const sender = new Uint8Array(20).fill(0x50);
let sent = 0;
let inFlight = 0;
let statuses: Record<string, number> = {};
let latencies: number[] = [];
const totals: Record<string, number> = {};
const url = `${info.url}/v1/signatureAggregator/fuji/aggregateSignatures`;

async function aggregateOnce(): Promise<void> {
  const message = bytesToHex(newUnsignedMessage(info.networkId, chainId, encodeAddressedCall(sender, new TextEncoder().encode(`soak ${++sent} ${Date.now()}`))).bytes);
  const t = performance.now();
  let status = '0';
  inFlight++;
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }), signal: AbortSignal.timeout(60_000) });
    await res.arrayBuffer();
    status = String(res.status);
  } catch {
    // No answer: counted as status 0.
  } finally {
    inFlight--;
  }
  statuses[status] = (statuses[status] ?? 0) + 1;
  totals[status] = (totals[status] ?? 0) + 1;
  if (status === '201') latencies.push(performance.now() - t);
}

const t0 = performance.now();
const endAt = t0 + minutes * 60_000;
const samples: Sample[] = [];
let kills = 0;
const sender$ = setInterval(() => void aggregateOnce(), 1000 / rate);
const killer =
  killEverySec > 0
    ? setInterval(() => {
        const hosts = children(pid);
        if (hosts.length === 0) return;
        const victim = hosts[kills % hosts.length]!;
        kills++;
        try {
          process.kill(victim, 'SIGKILL');
          log(`killed validator host ${victim} (${kills})`);
        } catch {
          // Gone already.
        }
      }, killEverySec * 1000)
    : undefined;

async function sample(): Promise<void> {
  const heap = await heapFromMetrics(info.url);
  const s: Sample = {
    t: Math.round((performance.now() - t0) / 1000),
    rssMb: mb(rssBytes(pid)),
    ...heap,
    cachedSignatures: await cachedSignatures(info.url),
    statuses,
    p50Ms: latencies.length ? round(percentile(latencies, 50), 1) : null,
    p99Ms: latencies.length ? round(percentile(latencies, 99), 1) : null,
    inFlight,
  };
  statuses = {};
  latencies = [];
  samples.push(s);
  log(`t=${s.t}s rss ${s.rssMb} MB heap ${s.heapUsedMb}/${s.heapTotalMb} MB external ${s.externalMb} MB cache ${s.cachedSignatures} ${JSON.stringify(s.statuses)} p50 ${s.p50Ms} ms`);
}

await sample();
while (performance.now() < endAt) {
  await new Promise((r) => setTimeout(r, Math.min(sampleEverySec * 1000, endAt - performance.now())));
  await sample();
}
clearInterval(sender$);
if (killer) clearInterval(killer);
// Let the last requests finish before the devnet stops.
for (let i = 0; i < 120 && inFlight > 0; i++) await new Promise((r) => setTimeout(r, 500));
child.kill('SIGTERM');
const exitCode = await new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));

function thirdMax(k: number, key: 'rssMb' | 'heapUsedMb'): number {
  const n = samples.length;
  const part = samples.slice(Math.floor((k * n) / 3), Math.floor(((k + 1) * n) / 3));
  return Math.max(...part.map((s) => s[key] ?? 0));
}
const verdict = {
  boundMb,
  rss: { first: samples[0]!.rssMb, max: Math.max(...samples.map((s) => s.rssMb)), middleThirdMax: thirdMax(1, 'rssMb'), lastThirdMax: thirdMax(2, 'rssMb') },
  heapUsed: { middleThirdMax: thirdMax(1, 'heapUsedMb'), lastThirdMax: thirdMax(2, 'heapUsedMb') },
  levelledOff: thirdMax(2, 'rssMb') - thirdMax(1, 'rssMb') < boundMb,
};
const report = {
  command: `node --import tsx bench/soak.ts --minutes ${minutes} --validators ${validators} --rate ${rate} --kill-every ${killEverySec} --transport ${transport}`,
  commit: commit(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '?', memoryGb: round(totalmem() / 2 ** 30, 1) },
  startedAt: new Date(Date.now() - (performance.now() - t0)).toISOString(),
  validators,
  transport,
  rate,
  killEverySec,
  kills,
  requests: sent,
  totals,
  devnetExit: exitCode,
  verdict,
  samples,
};
mkdirSync(dirname(jsonFile), { recursive: true });
writeFileSync(jsonFile, `${JSON.stringify(report, null, 1)}\n`);

const everyNth = Math.max(1, Math.round(samples.length / 15));
const rows = samples.filter((_, i) => i % everyNth === 0 || i === samples.length - 1);
process.stdout.write(`\n| t (min) | RSS (MB) | heap used (MB) | external (MB) | cached signatures | 201 | other |\n|---:|---:|---:|---:|---:|---:|---:|\n`);
for (const s of rows) {
  const ok = s.statuses['201'] ?? 0;
  const other = Object.entries(s.statuses).reduce((n, [k, v]) => (k === '201' ? n : n + v), 0);
  process.stdout.write(`| ${(s.t / 60).toFixed(1)} | ${s.rssMb} | ${s.heapUsedMb ?? '?'} | ${s.externalMb ?? '?'} | ${s.cachedSignatures ?? '?'} | ${ok} | ${other} |\n`);
}
process.stdout.write(
  `\n${sent} requests (${JSON.stringify(totals)}), ${kills} validator hosts killed; RSS ${verdict.rss.first} → max ${verdict.rss.max} MB; ` +
    `last third's max ${verdict.rss.lastThirdMax} vs middle third's ${verdict.rss.middleThirdMax} MB: ${verdict.levelledOff ? 'levelled off' : 'STILL GROWING'} (bound ${boundMb} MB). JSON: ${jsonFile}\n`,
);
