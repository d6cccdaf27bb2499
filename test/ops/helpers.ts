// Plumbing for the operations tests: Prometheus text parsing, polling with deadlines, captured
// pino output, and the real `warpgate` binary as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { WARPGATE } from '../source-cli.js';

/** Samples of a Prometheus text exposition, looked up by name and a subset of labels. */
export class Samples {
  private readonly samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  readonly help = new Set<string>();

  constructor(readonly text: string) {
    for (const line of text.split('\n')) {
      const helpMatch = /^# HELP (\S+)/.exec(line);
      if (helpMatch) this.help.add(helpMatch[1]!);
      if (line === '' || line.startsWith('#')) continue;
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`unparseable metrics line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
      this.samples.push({ name: m[1]!, labels, value: Number(m[3]) });
    }
  }

  /** The value of the one sample matching name and labels; undefined when none does. */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const hits = this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    if (hits.length > 1) throw new Error(`${hits.length} samples match ${name} ${JSON.stringify(labels)}`);
    return hits[0]?.value;
  }

  /** Sum over every sample of `name` matching the labels (0 when none). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((a, s) => a + s.value, 0);
  }
}

export async function scrape(baseUrl: string): Promise<Samples> {
  const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return new Samples(await res.text());
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export async function request(url: string, init: RequestInit = {}, timeoutMs = 15_000): Promise<JsonAnswer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  return request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** A pino destination that keeps every line. */
export class CapturedLog {
  readonly lines: string[] = [];
  write(chunk: string): void {
    for (const line of chunk.split('\n')) if (line !== '') this.lines.push(line);
  }
  get records(): Record<string, any>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, any>);
  }
}

/** The environment without the WARPGATE_* variables of the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WARPGATE_')));
  return { ...env, ...extra };
}

export interface WarpgateProcess {
  child: ChildProcess;
  stdoutLines: string[];
  stderr: () => string;
  /** Resolves with the first stdout line matching, or rejects at the deadline or on exit. */
  waitForLine(match: (line: string) => boolean, timeoutMs: number): Promise<string>;
  /** Resolves with the exit code, or rejects when the process is still running at the deadline. */
  exited(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if still running (test cleanup). */
  kill(): Promise<void>;
}

export function startWarpgate(args: string[], env: NodeJS.ProcessEnv): WarpgateProcess {
  const child = spawn(process.execPath, [...WARPGATE, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdoutLines: string[] = [];
  let stderr = '';
  let partial = '';
  const listeners = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    stdoutLines.push(...parts);
    for (const l of listeners) l();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const running = (): boolean => child.exitCode === null && child.signalCode === null;

  return {
    child,
    stdoutLines,
    stderr: () => stderr,
    waitForLine(match, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const line = stdoutLines.find(match);
          if (line !== undefined) finish(() => resolve(line));
          else if (!running()) finish(() => reject(new Error(`warpgate exited (${child.exitCode ?? child.signalCode}) first; stderr:\n${stderr}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no matching line within ${timeoutMs} ms; stderr:\n${stderr}`))), timeoutMs);
        const finish = (then: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', check);
          then();
        };
        listeners.add(check);
        child.on('exit', check);
        check();
      });
    },
    async exited(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`warpgate still running after ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
      });
      try {
        const [code, signal] = await Promise.race([exit, deadline]);
        return { code, signal };
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      if (!running()) return;
      child.kill('SIGKILL');
      await exit;
    },
  };
}

/** The parsed pino line whose msg is `msg` (the first one). */
export function logLine(lines: string[], msg: string): Record<string, any> | undefined {
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    const rec = JSON.parse(line) as Record<string, any>;
    if (rec.msg === msg) return rec;
  }
  return undefined;
}
