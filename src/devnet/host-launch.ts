// Starting one devnet host process (a signer host, signers/host.ts, or an avalanchego host,
// avalanchego-node/host.ts): fork it under the tsx loader, send its one `start` message, and wait
// for its `ready` message within a deadline. A host that fails, exits or stalls first is killed
// before the error is thrown.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { packagePath, tsExecArgv } from '../util/ts-runtime.js';
import type { HostFailed } from './host-serve.js';

/** Longest a host may take to start what it hosts. */
const HOST_READY_TIMEOUT_MS = 120_000;


/** Forks `entry` (relative to the package root), sends `start`, resolves with the process and its ready message. */
export async function launchHost<R extends { type: 'ready' }>(entry: string, start: object, what: string): Promise<{ child: ChildProcess; ready: R }> {
  // In a process group of its own (detached): a Ctrl-C in the terminal, or a SIGTERM to the
  // devnet's process group, reaches the devnet alone, which lets the service finish the
  // aggregations in flight before it stops its hosts. A host still ends with its devnet: it
  // stops when its IPC channel to the parent closes (host-serve.ts), however the parent ended.
  const child = fork(packagePath(entry), [], { execArgv: tsExecArgv(), stdio: ['ignore', 'ignore', 'inherit', 'ipc'], detached: true });
  child.send(start);
  let timer: NodeJS.Timeout | undefined;
  try {
    const [msg] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code, signal]) => {
        throw new Error(`devnet ${what} host exited (${String(code ?? signal)}) before it was ready`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`devnet ${what} host was not ready within ${HOST_READY_TIMEOUT_MS} ms`)), HOST_READY_TIMEOUT_MS);
      }),
    ])) as [R | HostFailed];
    if (msg.type === 'failed') throw new Error(`devnet ${what} host could not start: ${msg.reason}`);
    return { child, ready: msg as R };
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
