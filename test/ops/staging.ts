// Plumbing for the tests that run warpgate as it ships rather than from its sources: the package
// (test/ops/package.test.ts) and the Docker image's files (test/ops/docker.test.ts). Commands run
// as child processes with a deadline; npm is told to prefer its cache (the registry is only asked
// for what the cache lacks) and to stay quiet about audits and funding.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `warpgate-${prefix}-`));
}

/** The environment for npm in these tests: the cache first, no audit, no funding notes, no update check. */
export function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WARPGATE_') && !k.startsWith('npm_')));
  return {
    ...env,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_loglevel: 'error',
    ...extra,
  };
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; rejects when it is still running at the deadline (it is killed). */
export function runCommand(command: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number; shell?: boolean }): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? npmEnv(), shell: opts.shell ?? false, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} still running after ${opts.timeoutMs} ms in ${opts.cwd}\n${stderr.slice(-3000)}`));
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like runCommand, but a non-zero exit is an error carrying the command's output. */
export async function mustRun(command: string, args: string[], opts: Parameters<typeof runCommand>[2]): Promise<CommandResult> {
  const result = await runCommand(command, args, opts);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code} in ${opts.cwd}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`);
  return result;
}

/** Copies paths of the checkout (files or folders, relative to its root) into `dir`. */
export function copyFromCheckout(paths: readonly string[], dir: string): void {
  for (const path of paths) {
    const from = join(ROOT, path);
    if (!existsSync(from)) throw new Error(`${path} is not in the checkout`);
    cpSync(from, join(dir, path), { recursive: true });
  }
}

/** Processes whose parent is `pid` (from /proc: Linux only, nothing else needed). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (after the parenthesised command, which may hold spaces) is the parent pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // The process went away while we looked.
    }
  }
  return out;
}

/** A process's command line, as its arguments. */
export function commandLineOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
}
