// Linux `perf record` of one process over the measured interval (bench --perf DIR): cpu-clock
// samples with call stacks on every thread, the kernel's included. The service runs with
// --perf-prof so that its JIT code has names (jit-PID.dump, which bench/perf-summary.ts hands to
// `perf inject --jit` before `perf script`). bench/perf-profile.ts reads the result.
import { spawn, type ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';

/** Samples per second per thread: ~1 ms apart, as --cpu-prof's default. */
const FREQUENCY_HZ = 999;
const READY_WITHIN_MS = 10_000;
const STOP_WITHIN_MS = 60_000;

export class PerfRecordError extends Error {
  override readonly name = 'PerfRecordError';
}

export interface PerfRecording {
  file: string;
  /** Stops perf (SIGINT: it writes out what it has) and resolves once the file is complete. */
  stop(): Promise<void>;
}

/** Starts recording `pid` into `file`; resolves once perf has attached (its file has a header). */
export async function startPerfRecord(pid: number, file: string): Promise<PerfRecording> {
  // -k mono: the clock V8's jitdump stamps its code with, so that perf inject --jit can tell which
  // code was at an address when a sample was taken.
  const child = spawn('perf', ['record', '-k', 'mono', '-e', 'cpu-clock', '-F', String(FREQUENCY_HZ), '-g', '-p', String(pid), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('exit', (code) => resolve({ code }));
  });
  const failed = (why: string): PerfRecordError => new PerfRecordError(`perf record ${why}${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
  const until = Date.now() + READY_WITHIN_MS;
  for (;;) {
    const early = await Promise.race([exited, sleep(50).then(() => undefined)]);
    if (early) throw failed(early.error ? `could not start (${early.error.message}; is Debian's linux-perf installed?)` : `exited (${early.code}) before recording`);
    if (((await stat(file).catch(() => undefined))?.size ?? 0) > 0) break;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw failed(`did not start within ${READY_WITHIN_MS} ms`);
    }
  }
  return { file, stop: () => stopRecording(child, exited, failed) };
}

async function stopRecording(child: ChildProcess, exited: Promise<{ code: number | null; error?: Error }>, failed: (why: string) => PerfRecordError): Promise<void> {
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WITHIN_MS);
  const { error } = await exited;
  clearTimeout(timer);
  if (error) throw failed(`failed (${error.message})`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
