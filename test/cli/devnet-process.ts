// `warpgate devnet --json` as a child process, for the tests that need the real command: its
// one JSON line once ready, its stderr, and its exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { WARPGATE } from '../source-cli.js';

export interface DevnetProcess {
  proc: ChildProcess;
  info: { url: string; networkId: number; blockchainId: string; pchainUrl: string } & Record<string, unknown>;
  stderr(): string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** Starts `warpgate devnet --json …args` and waits (up to readyMs) for its JSON line. */
export async function startDevnetProcess(args: string[], opts: { env?: NodeJS.ProcessEnv; readyMs?: number; detached?: boolean } = {}): Promise<DevnetProcess> {
  const proc = spawn(process.execPath, [...WARPGATE, 'devnet', '--json', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ?? process.env, detached: opts.detached ?? false });
  let stdout = '';
  let stderr = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const readyMs = opts.readyMs ?? 60_000;
  const until = Date.now() + readyMs;
  while (!stdout.includes('\n')) {
    if (proc.exitCode !== null) throw new Error(`devnet exited with ${proc.exitCode}: ${stderr.slice(-2000)}`);
    if (Date.now() > until) {
      proc.kill('SIGKILL');
      throw new Error(`no JSON line within ${readyMs} ms; stderr: ${stderr.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, info: JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as DevnetProcess['info'], stderr: () => stderr, exited };
}
