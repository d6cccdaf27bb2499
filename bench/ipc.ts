// Request/response over a child process's IPC channel, for the benchmark's hosts (signers,
// service). Every call has a deadline; a child that exits fails its pending calls at once.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { packagePath, tsExecArgv } from '../src/util/ts-runtime.js';

interface Envelope {
  id: number;
  request: { type: string };
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export class HostError extends Error {
  override readonly name = 'HostError';
}

/** The parent's handle on one host process. */
export class HostProcess {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private exited = false;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.on('message', (msg: Reply) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new HostError(`${name}: ${msg.error}`));
    });
    child.on('exit', (code, signal) => {
      this.exited = true;
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new HostError(`${name} exited (${signal ?? code}) while handling request ${id}`));
      }
      this.pending.clear();
    });
  }

  /**
   * Forks bench/<entry> under the tsx loader; `extraExecArgv` go to node (e.g. profiling flags),
   * `cwd` is the child's working directory (where V8 writes a perf jitdump).
   */
  static start(name: string, entry: string, extraExecArgv: string[] = [], cwd?: string): HostProcess {
    const child = fork(packagePath(entry), [], {
      execArgv: [...tsExecArgv(), ...extraExecArgv],
      ...(cwd ? { cwd } : {}),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Structured clone: bigints and typed arrays cross as they are.
      serialization: 'advanced',
    });
    return new HostProcess(name, child);
  }

  call<T, R extends { type: string } = { type: string }>(request: R, timeoutMs: number): Promise<T> {
    if (this.exited) return Promise.reject(new HostError(`${this.name} has exited`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new HostError(`${this.name}: no answer to '${request.type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.child.send({ id, request } satisfies Envelope);
    });
  }

  /**
   * Sets the host's nice value on every thread it has (Linux keeps one per thread; threads it
   * starts later inherit their creator's), or on the process where /proc has no task list.
   * Returns how many threads were set.
   */
  renice(nice: number): number {
    const pid = this.child.pid;
    if (pid === undefined) throw new HostError(`${this.name} has no process to renice`);
    let tids: number[];
    try {
      tids = readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      tids = [pid];
    }
    for (const tid of tids) setPriority(tid, nice);
    return tids.length;
  }

  /** Asks the host to stop; kills it if it has not exited within `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.exited || this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    await this.call({ type: 'stop' }, graceMs).catch(() => undefined);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}

const parentAtStart = process.ppid;

/**
 * For a host's long synchronous work (signing a run's messages ahead of time takes minutes at
 * 2,000 validators): 'disconnect' cannot fire while the event loop is blocked, so a host whose
 * benchmark was killed would go on signing for minutes. Losing the parent reparents the process.
 */
export function exitIfOrphaned(): void {
  if (process.ppid !== parentAtStart) process.exit(1);
}

/**
 * The child's side: answers each request with its handler's result. `stop` runs `onStop`, then
 * the process exits 0; losing the parent does the same, so hosts never outlive the benchmark.
 */
export function serveHost(handlers: Record<string, (request: never) => Promise<unknown>>, onStop: () => Promise<void>): void {
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= onStop()
      .catch((err: unknown) => console.error(err))
      .then(() => {
        process.disconnect?.();
        process.exit(0);
      }));
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('message', (msg: Envelope) => {
    const { id, request } = msg;
    if (request.type === 'stop') {
      process.send?.({ id, ok: true, value: null } satisfies Reply, () => void stop());
      return;
    }
    const handler = handlers[request.type];
    const work = handler ? handler(request as never) : Promise.reject(new Error(`unknown request '${request.type}'`));
    work.then(
      (value) => process.send?.({ id, ok: true, value } satisfies Reply),
      (err: unknown) => process.send?.({ id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies Reply),
    );
  });
}
