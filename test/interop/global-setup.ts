// Builds the interop binaries (interop/build.sh) and starts one real network for the whole
// `npm run test:interop` run; the tests read its description with inject('interopNetwork').
// Teardown stops it with SIGTERM (the last test file may already have killed it with SIGKILL).
// WARPGATE_INTEROP_NETWORK_JSON (and _PID) point the tests at a network started by hand instead.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { BUILD_DIR, INTEROP_BIN, NETWORK_ROOT, REPO, type NetworkDescription } from './paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    interopNetwork: NetworkDescription;
    interopNetworkPid: number;
  }
}

const START_TIMEOUT_MS = 25 * 60_000;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // A network already started with `npm run interop:network` (its JSON line saved to a file,
  // and its pid): the tests use it and leave it running, unless a test file kills it.
  const existing = process.env.WARPGATE_INTEROP_NETWORK_JSON;
  if (existing) {
    project.provide('interopNetwork', JSON.parse(readFileSync(existing, 'utf8')) as NetworkDescription);
    project.provide('interopNetworkPid', Number(process.env.WARPGATE_INTEROP_NETWORK_PID));
    return async () => undefined;
  }
  const build = spawnSync('bash', [`${REPO}/interop/build.sh`], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
  if (build.status !== 0) {
    const why = build.stderr.trim().split('\n').filter((l) => l.startsWith('interop:')).pop() ?? build.stderr.trim();
    throw new Error(why || `interop/build.sh exited ${build.status}`);
  }
  process.stderr.write(build.stderr);

  mkdirSync(BUILD_DIR, { recursive: true });
  const logPath = `${BUILD_DIR}/network.log`;
  const log = createWriteStream(logPath);
  const started = Date.now();
  const child = spawn(INTEROP_BIN, ['network', '-avalanchego', `${BUILD_DIR}/avalanchego`, '-plugin-dir', `${BUILD_DIR}/plugins`, '-root-dir', NETWORK_ROOT, '-start-timeout', '20m'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.pipe(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    let stderrTail = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderrTail = (stderrTail + c).slice(-6000)));
    const timer = setTimeout(() => reject(new Error(`the network did not start within ${START_TIMEOUT_MS / 60_000} min (log: ${logPath})`)), START_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`interop network exited (${code}) before it was healthy; log ${logPath}; last output:\n${stderrTail}`));
    });
  });
  const network = JSON.parse(line) as NetworkDescription;
  process.stderr.write(`interop: network started in ${((Date.now() - started) / 1000).toFixed(0)} s (nodes healthy after ${network.startSeconds.toFixed(0)} s)\n`);
  project.provide('interopNetwork', network);
  project.provide('interopNetworkPid', child.pid!);

  return async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 3 * 60_000)))]);
    clearTimeout(timer);
    log.end();
    if (code === 'late') {
      child.kill('SIGKILL');
      throw new Error('interop network did not stop within 3 min of SIGTERM');
    }
  };
}
