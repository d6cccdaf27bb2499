// What a Linux `perf record -e cpu-clock -g` of the service spent its CPU on, read from `perf
// script` text. Unlike a V8 .cpuprofile (--cpu-prof), which samples the main thread by the wall
// clock (a thread waiting for a core is charged to whatever it was running, a socket write
// most often), cpu-clock samples only run on a core, on every thread, with the kernel's share
// (TCP on loopback, epoll) and the native code's (blst, OpenSSL, V8's GC and compiler) in them.
// Pure: the text in, ms per aggregation out (bench/perf-summary.ts runs perf and prints).

/** One sample: the thread and its stack, leaf first. `ns`: its period (CPU nanoseconds for cpu-clock). */
export interface PerfSample {
  pid: number;
  tid: number;
  ns: number;
  frames: PerfFrame[];
}

export interface PerfFrame {
  ip: string;
  symbol: string;
  /** The file the code is in: a binary, a shared object, a .node addon, or a jitted-PID-N.so for JIT code (perf inject --jit). */
  dso: string;
}

/**
 * Parses `perf script -F pid,tid,period,ip,sym,dso` output: a header line per sample
 * (`PID/TID PERIOD`), then one `IP SYMBOL (DSO)` line per frame, samples apart by a blank line.
 */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    const header = lines[0]?.trim().match(/(\d+)\/(\d+)\s+(\d+)/);
    if (!header) continue;
    const frames = lines.slice(1).map(parseFrame);
    samples.push({ pid: Number(header[1]), tid: Number(header[2]), ns: Number(header[3]), frames });
  }
  return samples;
}

function parseFrame(line: string): PerfFrame {
  const m = line.trim().match(/^([0-9a-f]+)\s+(.*?)\s+\(([^()]*)\)$/);
  return m ? { ip: m[1]!, symbol: m[2]!, dso: m[3]! } : { ip: '', symbol: line.trim(), dso: '' };
}

/** Which thread of the service a sample ran on, by what the thread's stacks show it to be. */
export type ThreadRole = 'main' | 'BLS workers' | 'I/O shards' | 'other worker threads' | 'V8 helpers (GC, compiler)' | 'libuv pool' | 'other threads';

/** @chainsafe/blst's native addon: a frame in it is the cryptography itself. */
const BLST_ADDON = /\/blst[^/]*\.node$/;

const isWorkerThread = (s: PerfSample): boolean => s.frames.some((f) => f.symbol.includes('node::worker::Worker::Run'));
const ranBls = (s: PerfSample): boolean => s.frames.some((f) => BLST_ADDON.test(f.dso) || f.symbol.includes('bls-pool/worker'));
const ranShard = (s: PerfSample): boolean => s.frames.some((f) => f.symbol.includes('src/p2p/shard-worker'));
const isV8Helper = (s: PerfSample): boolean => s.frames.some((f) => f.symbol.includes('PlatformWorkerThread'));
const isLibuvPool = (s: PerfSample): boolean => s.frames.some((f) => /\buv__?(threadpool|work)|^worker$/.test(f.symbol) && f.dso.endsWith('node'));

/**
 * Each thread's role. A native stack often does not unwind to the thread's start (blst is built
 * without frame pointers), so a thread is named by any of its samples that shows what it is.
 */
export function threadRoles(samples: readonly PerfSample[]): Map<number, ThreadRole> {
  const evidence = new Map<number, { worker: boolean; bls: boolean; shard: boolean; v8: boolean; libuv: boolean; main: boolean }>();
  for (const s of samples) {
    const e = evidence.get(s.tid) ?? { worker: false, bls: false, shard: false, v8: false, libuv: false, main: s.tid === s.pid };
    e.worker ||= isWorkerThread(s);
    e.bls ||= ranBls(s);
    e.shard ||= ranShard(s);
    e.v8 ||= isV8Helper(s);
    e.libuv ||= isLibuvPool(s);
    evidence.set(s.tid, e);
  }
  const roles = new Map<number, ThreadRole>();
  for (const [tid, e] of evidence) {
    roles.set(
      tid,
      e.main ? 'main' : e.shard ? 'I/O shards' : e.bls ? 'BLS workers' : e.worker ? 'other worker threads' : e.v8 ? 'V8 helpers (GC, compiler)' : e.libuv ? 'libuv pool' : 'other threads',
    );
  }
  return roles;
}

const GC = /Heap::|Scavenge|MarkCompact|ConcurrentMarking|MinorMarkSweep|Sweeper|ArrayBufferSweeper|GCTracer|IncrementalMarking|MemoryAllocator::Unmapper/;
const COMPILER = /OptimizingCompileDispatcher|compiler::Pipeline|Maglev|BaselineBatchCompiler|Compiler::Compile|CompileLazy/;
const OPENSSL = /^(ssl|SSL|EVP_|aes|gcm|ossl_|CRYPTO_|tls|sha\d|bn_|ChaCha|Poly1305)/i;
const THREAD_MESSAGES = /MessagePort|ValueSerializer|ValueDeserializer|worker::Message/;
const KERNEL_IP = /^ffffffff/;

/** The system call a kernel stack is in, named by its entry point (the frame just above the syscall dispatch). */
function syscallOf(frames: readonly PerfFrame[]): string | undefined {
  const at = frames.findIndex((f) => /do_syscall_64|entry_SYSCALL/.test(f.symbol));
  return at > 0 ? frames[at - 1]!.symbol : undefined;
}

function kernelCategory(frames: readonly PerfFrame[]): string {
  const call = syscallOf(frames);
  if (call === undefined) return 'kernel: interrupts, scheduling';
  if (/writev|sys_write|sendmsg|sendto/.test(call)) return 'kernel: socket writes (TCP on loopback)';
  if (/read|recvmsg|recvfrom/.test(call)) return 'kernel: socket reads';
  if (/epoll/.test(call)) return 'kernel: epoll';
  if (/futex/.test(call)) return 'kernel: futex (threads waking each other)';
  return 'kernel: other system calls';
}

/** JIT code's frames carry the script's URL: `JS:*name file:///…/src/x.ts:1:2`, `JS:^name node:internal/…`. */
function jsOrigin(symbol: string, root: string): string | undefined {
  if (!symbol.startsWith('JS:')) return undefined;
  const url = symbol.slice(symbol.lastIndexOf(' ') + 1).replace(/:\d+(:\d+)?$/, '').replace(/^file:\/\//, '');
  const dep = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (dep) return `dependency: ${dep[1]}`;
  if (url.startsWith(root)) return `ours: ${url.slice(root.length).replace(/^\//, '')}`;
  const internal = url.match(/^node:(?:internal\/)?([a-z_]+)/);
  return internal ? `node: ${internal[1]}` : 'JS: other';
}

/**
 * What a sample's CPU went to, one category each, first match wins: GC, the JIT compiler, blst,
 * the kernel (by system call), OpenSSL, a message between threads being written or read, else
 * the innermost JavaScript frame's origin (our module, a dependency, node's internals), else the
 * native leaf.
 */
export function categoryOf(sample: PerfSample, root: string): string {
  const { frames } = sample;
  const leaf = frames[0];
  // Only the native frames above the innermost JavaScript one say what native work ran: below
  // it, a MessagePort frame is only where the callback that is running came from.
  const firstJs = frames.findIndex((f) => f.symbol.startsWith('JS:'));
  const native = firstJs < 0 ? frames : frames.slice(0, firstJs);
  if (native.some((f) => GC.test(f.symbol))) return 'GC';
  if (native.some((f) => COMPILER.test(f.symbol))) return 'JIT compiler';
  if (leaf && BLST_ADDON.test(leaf.dso)) return 'blst (BLS cryptography)';
  if (leaf && KERNEL_IP.test(leaf.ip)) return kernelCategory(frames);
  if (leaf && OPENSSL.test(leaf.symbol)) return 'OpenSSL (TLS)';
  if (native.some((f) => THREAD_MESSAGES.test(f.symbol))) return 'messages between threads (serialization)';
  for (const f of frames) {
    const origin = jsOrigin(f.symbol, root);
    if (origin) return origin;
  }
  if (leaf && /malloc|free|memmove|memcpy|memset/.test(leaf.symbol)) return 'native: memory (malloc, copies)';
  return 'native: other';
}

/** CPU ms per aggregation of every thread together. */
export function totalMs(summary: PerfSummary): number {
  return Object.values(summary.byRole).reduce((a, b) => a + b, 0);
}

/** CPU ms per aggregation, by thread role and by role and category. */
export interface PerfSummary {
  aggregations: number;
  byRole: Record<string, number>;
  /** `role · category` → ms per aggregation. */
  byCategory: Record<string, number>;
}

export function summarizePerf(samples: readonly PerfSample[], aggregations: number, root: string): PerfSummary {
  if (!(aggregations > 0)) throw new RangeError('summarizePerf: aggregations must be positive');
  const roles = threadRoles(samples);
  const byRole: Record<string, number> = {};
  const byCategory: Record<string, number> = {};
  for (const s of samples) {
    const ms = s.ns / 1e6 / aggregations;
    const role = roles.get(s.tid)!;
    byRole[role] = (byRole[role] ?? 0) + ms;
    const key = `${role} · ${categoryOf(s, root)}`;
    byCategory[key] = (byCategory[key] ?? 0) + ms;
  }
  return { aggregations, byRole, byCategory };
}

/** Rows for a side-by-side table: every key of either summary, largest difference first. */
export function comparePerf(a: Record<string, number>, b: Record<string, number>): { key: string; a: number; b: number; difference: number }[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys]
    .map((key) => ({ key, a: a[key] ?? 0, b: b[key] ?? 0, difference: (a[key] ?? 0) - (b[key] ?? 0) }))
    .sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference) || x.key.localeCompare(y.key));
}

/**
 * The main thread's categories that are the verification's own work: code the floor never runs
 * (the verification, the BLS pool and piscina, the fewest signers) and writing or reading the
 * messages to the worker threads. Everything else on the main thread is work both do (the
 * peers' I/O, the collection, HTTP), which may still cost more or less in one run than in another.
 */
const VERIFICATION_PATHS = /^main · (ours: src\/(aggregator\/verification\.ts|bls-pool\/|bls\/|validators\/minimal-signers\.ts)|dependency: piscina|messages between threads)/;

/** A strategy's CPU above the floor's, ms per aggregation, in the parts that say whose it is. */
export interface DifferenceSplit {
  total: number;
  /** blst's own code on the BLS threads: the cryptography. */
  blst: number;
  /** The BLS threads' time beyond it: waking for tasks, the messages, N-API, the tasks' own JavaScript. */
  blsThreadsBeyondBlst: number;
  /** The main thread in the verification's own paths (VERIFICATION_PATHS). */
  mainVerificationPaths: number;
  /** The main thread in the work both strategies do. */
  mainSharedWork: number;
  /** V8's optimizing compiler on any thread (JIT warm-up not over yet). */
  jitCompiler: number;
  /** Garbage collection on any thread. */
  gc: number;
  /** What is left: other threads, and the BLS threads' share that is neither of the above. */
  other: number;
}

export function differenceSplit(strategy: PerfSummary, floor: PerfSummary): DifferenceSplit {
  const cat = (s: PerfSummary, pick: (key: string) => boolean): number =>
    Object.entries(s.byCategory).reduce((sum, [key, ms]) => (pick(key) ? sum + ms : sum), 0);
  const diff = (pick: (key: string) => boolean): number => cat(strategy, pick) - cat(floor, pick);
  const isGc = (k: string): boolean => k.endsWith(' · GC');
  const isJit = (k: string): boolean => k.endsWith(' · JIT compiler');
  const blst = diff((k) => k === 'BLS workers · blst (BLS cryptography)');
  const blsThreadsBeyondBlst = diff((k) => k.startsWith('BLS workers · ') && k !== 'BLS workers · blst (BLS cryptography)' && !isGc(k) && !isJit(k));
  const mainVerificationPaths = diff((k) => VERIFICATION_PATHS.test(k));
  const mainSharedWork = diff((k) => k.startsWith('main · ') && !VERIFICATION_PATHS.test(k) && !isGc(k) && !isJit(k));
  const jitCompiler = diff(isJit);
  const gc = diff(isGc);
  const total = totalMs(strategy) - totalMs(floor);
  return { total, blst, blsThreadsBeyondBlst, mainVerificationPaths, mainSharedWork, jitCompiler, gc, other: total - blst - blsThreadsBeyondBlst - mainVerificationPaths - mainSharedWork - jitCompiler - gc };
}
