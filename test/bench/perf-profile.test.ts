// Reading a `perf record -e cpu-clock -g` of the service (bench --perf): which thread each
// sample ran on and what it ran, in ms per aggregation. The text is `perf script -F
// pid,tid,period,ip,sym,dso` as perf prints it, stacks cut short.
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../bench/args.js';
import { categoryOf, comparePerf, differenceSplit, parsePerfScript, summarizePerf, threadRoles, type PerfSummary } from '../../bench/perf-profile.js';

const ROOT = '/work/app/';
const MS = 1_000_000;

/** One sample's text: its header, then its frames leaf first as `ip symbol (dso)`. */
function sample(pid: number, tid: number, frames: [string, string, string][], ns = MS): string {
  return [`${pid}/${tid}    ${ns} `, ...frames.map(([ip, sym, dso]) => `\t    ${ip} ${sym} (${dso})`)].join('\n');
}

const NODE = '/usr/bin/node';
const MAP = '/work/app/perf/jitted-100-7.so';
const BLST = '/work/app/node_modules/@chainsafe/blst-linux-x64-gnu/blst.linux-x64-gnu.node';
const WORKER_ROOT: [string, string, string] = ['9bb106', 'node::worker::Worker::Run', NODE];

const TEXT = [
  // The main thread in our code, in a dependency, in node's streams, and in the kernel.
  sample(100, 100, [
    ['7f01', 'JS:*fold file:///work/app/src/aggregator/verification.ts:1:3187', MAP],
    ['7f02', 'JS:*onMessage file:///work/app/src/peers/service-session.ts:1:4241', MAP],
  ]),
  sample(100, 100, [
    ['150d0d2', 'Builtins_LoadIC_Megamorphic', NODE],
    ['7f03', 'JS:*dataMessage /work/app/node_modules/ws/lib/receiver.js:585:14', MAP],
    ['7f02', 'JS:*onMessage file:///work/app/src/peers/service-session.ts:1:4241', MAP],
  ]),
  sample(100, 100, [
    ['7f04', 'JS:*get interface /work/app/node_modules/piscina/dist/index.js:178:5', MAP],
  ]),
  sample(100, 100, [['7f05', 'JS:*writeOrBuffer node:internal/streams/writable:548:23', MAP]]),
  sample(100, 100, [
    ['ffffffff81a0', 'tcp_sendmsg_locked', '[kernel.kallsyms]'],
    ['ffffffff81b0', 'do_writev', '[kernel.kallsyms]'],
    ['ffffffff821ed511', 'do_syscall_64', '[kernel.kallsyms]'],
    ['108cae', 'writev', '/usr/lib/x86_64-linux-gnu/libc.so.6'],
  ]),
  sample(100, 100, [
    ['ffffffff81c0', 'ep_poll', '[kernel.kallsyms]'],
    ['ffffffff81c1', '__x64_sys_epoll_pwait', '[kernel.kallsyms]'],
    ['ffffffff821ed511', 'do_syscall_64', '[kernel.kallsyms]'],
  ]),
  sample(100, 100, [['ffffffff81d0', 'finish_task_switch.isra.0', '[kernel.kallsyms]']]),
  // A message to a worker: the serializer under postMessage, called from our pool.
  sample(100, 100, [
    ['c1', 'v8::internal::ValueSerializer::WriteObject(v8::internal::Handle<v8::internal::Object>)', NODE],
    ['c2', 'node::worker::MessagePort::PostMessage(v8::FunctionCallbackInfo<v8::Value> const&)', NODE],
    ['7f06', 'JS:*runTask file:///work/app/src/bls-pool/pool.ts:1:900', MAP],
  ]),
  // Our code running in the callback of a message from a worker: ours, not the message's.
  sample(100, 100, [
    ['7f09', 'JS:*verified file:///work/app/src/aggregator/signature-ledger.ts:1:50', MAP],
    ['c5', 'node::worker::MessagePort::OnMessage(node::worker::MessagePort::MessageProcessingMode)', NODE],
  ]),
  sample(100, 100, [['c3', 'SSL_write', NODE]]),
  sample(100, 100, [['c4', '_int_malloc', '/usr/lib/x86_64-linux-gnu/libc.so.6']]),
  // A BLS worker: blst's own frames do not unwind to the thread's start, its other samples do.
  sample(100, 201, [['b143f', '[unknown]', BLST]]),
  sample(100, 201, [['b1440', '[unknown]', BLST]]),
  sample(100, 201, [['7f07', 'JS:*publicKey file:///work/app/src/bls-pool/worker.ts:1:374', MAP], WORKER_ROOT]),
  // An I/O shard (a worker thread running the shard's module) and an idle worker thread.
  sample(100, 202, [['7f08', 'JS:*onFrame file:///work/app/src/p2p/shard-worker.ts:1:10', MAP], WORKER_ROOT]),
  sample(100, 203, [['d1', 'uv__io_poll', NODE], WORKER_ROOT]),
  // V8's helpers: the scavenger and the optimizing compiler, each on a platform thread.
  sample(100, 301, [
    ['e1', 'v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>', NODE],
    ['e2', 'node::(anonymous namespace)::PlatformWorkerThread(void*)', NODE],
  ]),
  sample(100, 302, [
    ['e3', 'v8::internal::compiler::GraphReducer::ReduceTop()', NODE],
    ['e4', 'v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal()', NODE],
    ['e2', 'node::(anonymous namespace)::PlatformWorkerThread(void*)', NODE],
  ]),
  // A thread nothing names.
  sample(100, 400, [['f1', '[unknown]', '[unknown]']], 2 * MS),
].join('\n\n');

describe('perf script text', () => {
  const samples = parsePerfScript(TEXT);

  it('reads every sample: thread, period and frames, symbols with spaces and parentheses kept whole', () => {
    expect(samples).toHaveLength(19);
    expect(samples[0]).toMatchObject({ pid: 100, tid: 100, ns: MS });
    expect(samples[7]!.frames[1]).toEqual({ ip: 'c2', symbol: 'node::worker::MessagePort::PostMessage(v8::FunctionCallbackInfo<v8::Value> const&)', dso: NODE });
    expect(samples.at(-1)!.ns).toBe(2 * MS);
  });

  it('skips what is not a sample (perf warnings, blank runs)', () => {
    expect(parsePerfScript(`Warning:\nsomething was lost\n\n\n${sample(1, 1, [['a', 'x', NODE]])}\n\n`)).toHaveLength(1);
    expect(parsePerfScript('')).toEqual([]);
  });

  it('names each thread by what any of its samples shows it to be', () => {
    const roles = threadRoles(samples);
    expect(Object.fromEntries(roles)).toEqual({
      100: 'main',
      201: 'BLS workers',
      202: 'I/O shards',
      203: 'other worker threads',
      301: 'V8 helpers (GC, compiler)',
      302: 'V8 helpers (GC, compiler)',
      400: 'other threads',
    });
  });

  it('names what each sample ran: the innermost JavaScript frame, or the native work under it', () => {
    expect(samples.map((s) => categoryOf(s, ROOT))).toEqual([
      'ours: src/aggregator/verification.ts',
      'dependency: ws',
      'dependency: piscina',
      'node: streams',
      'kernel: socket writes (TCP on loopback)',
      'kernel: epoll',
      'kernel: interrupts, scheduling',
      'messages between threads (serialization)',
      'ours: src/aggregator/signature-ledger.ts',
      'OpenSSL (TLS)',
      'native: memory (malloc, copies)',
      'blst (BLS cryptography)',
      'blst (BLS cryptography)',
      'ours: src/bls-pool/worker.ts',
      'ours: src/p2p/shard-worker.ts',
      'native: other',
      'GC',
      'JIT compiler',
      'native: other',
    ]);
  });

  it('adds the samples up as CPU ms per aggregation, by thread and by thread and category', () => {
    const summary = summarizePerf(samples, 2, ROOT);
    expect(summary.byRole).toEqual({
      main: 5.5,
      'BLS workers': 1.5,
      'I/O shards': 0.5,
      'other worker threads': 0.5,
      'V8 helpers (GC, compiler)': 1,
      'other threads': 1,
    });
    expect(summary.byCategory['BLS workers · blst (BLS cryptography)']).toBe(1);
    expect(summary.byCategory['main · ours: src/aggregator/verification.ts']).toBe(0.5);
    expect(() => summarizePerf(samples, 0, ROOT)).toThrow(RangeError);
  });

  it('sets two summaries side by side, the largest difference first', () => {
    expect(comparePerf({ a: 3, b: 1, c: 2 }, { a: 2.5, b: 4, d: 1 })).toEqual([
      { key: 'b', a: 1, b: 4, difference: -3 },
      { key: 'c', a: 2, b: 0, difference: 2 },
      { key: 'd', a: 0, b: 1, difference: -1 },
      { key: 'a', a: 3, b: 2.5, difference: 0.5 },
    ]);
  });
});

describe('the difference from the floor, by whose it is', () => {
  const summary = (byCategory: Record<string, number>): PerfSummary => {
    const byRole: Record<string, number> = {};
    for (const [key, ms] of Object.entries(byCategory)) {
      const role = key.split(' · ')[0]!;
      byRole[role] = (byRole[role] ?? 0) + ms;
    }
    return { aggregations: 1, byRole, byCategory };
  };
  const floor = summary({
    'main · kernel: socket writes (TCP on loopback)': 5,
    'main · ours: src/peers/service-session.ts': 2,
    'main · GC': 1,
    'V8 helpers (GC, compiler) · GC': 2,
    'V8 helpers (GC, compiler) · JIT compiler': 0.5,
  });
  const warpgate = summary({
    'main · kernel: socket writes (TCP on loopback)': 5.5,
    'main · ours: src/peers/service-session.ts': 1.8,
    'main · ours: src/aggregator/verification.ts': 0.7,
    'main · ours: src/bls-pool/pool.ts': 0.2,
    'main · dependency: piscina': 0.3,
    'main · messages between threads (serialization)': 0.4,
    'main · ours: src/validators/minimal-signers.ts': 0.1,
    'main · GC': 1.2,
    'BLS workers · blst (BLS cryptography)': 14,
    'BLS workers · kernel: interrupts, scheduling': 0.5,
    'BLS workers · ours: src/bls-pool/worker.ts': 0.4,
    'BLS workers · GC': 0.1,
    'V8 helpers (GC, compiler) · GC': 2.3,
    'V8 helpers (GC, compiler) · JIT compiler': 1.5,
    'V8 helpers (GC, compiler) · kernel: futex (threads waking each other)': 0.25,
  });

  it('puts each category of the difference in one part, and the parts add up to it', () => {
    const split = differenceSplit(warpgate, floor);
    expect(split.total).toBeCloseTo(18.75);
    expect(split.blst).toBeCloseTo(14);
    expect(split.blsThreadsBeyondBlst).toBeCloseTo(0.9);
    expect(split.mainVerificationPaths).toBeCloseTo(1.7);
    // Socket writes +0.5, the session −0.2: work both do, costing more or less.
    expect(split.mainSharedWork).toBeCloseTo(0.3);
    expect(split.jitCompiler).toBeCloseTo(1);
    expect(split.gc).toBeCloseTo(0.6);
    expect(split.other).toBeCloseTo(0.25);
  });
});

describe('bench --perf', () => {
  it('takes the directory for the recordings', () => {
    expect(parseArgs(['--perf', '/tmp/p']).perfDir).toBe('/tmp/p');
    expect(parseArgs([]).perfDir).toBeUndefined();
  });
});
