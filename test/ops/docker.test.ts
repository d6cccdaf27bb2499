// What `docker build` and `docker run -p 8080:8080 warpgate` rely on, without a Docker engine: the
// Dockerfile is carried out (dockerfile.ts: every stage's WORKDIR, COPY and RUN, npm preferring
// its cache), then the image's ENTRYPOINT + CMD run from the staged files as the container would
// start them. The container default, `warpgate serve` without a config, serves its devnet on
// every interface (0.0.0.0) so a published port reaches it; /health and /ready answer; the
// HEALTHCHECK command passes while it runs and fails once it is gone; SIGINT (Ctrl-C in
// `docker run -it`) exits 0. What a folder cannot show (a non-root USER, EXPOSE) is read from the
// recipe.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildStages, dockerignore, execForm, lastOf, type Stage } from './dockerfile.js';
import { request, waitFor } from './helpers.js';
import { childrenOf, commandLineOf, npmEnv, ROOT, runCommand, tempDir } from './staging.js';

const work = tempDir('docker');
const processes: { kill(): void }[] = [];
afterAll(() => {
  for (const p of processes) p.kill();
  rmSync(work, { recursive: true, force: true });
});

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe('the Docker image, built and run without a Docker engine', () => {
  let stages: Stage[] = [];
  let image: Stage;
  let appDir: string;

  it('builds: a build stage compiles, the image holds the compiled code and production dependencies only', async () => {
    stages = await buildStages(dockerfile, ROOT, work, 240_000);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    image = stages[stages.length - 1]!;
    appDir = join(image.root, image.workdir);
    // The image installs and compiles nothing itself: it takes a stage's results.
    expect(image.instructions.filter((i) => i.keyword === 'RUN')).toEqual([]);
    expect(existsSync(join(appDir, 'dist', 'cli.js'))).toBe(true);
    expect(existsSync(join(appDir, 'dist', 'bls-pool', 'worker.js'))).toBe(true);
    expect(existsSync(join(appDir, 'src'))).toBe(false);
    const installed = (name: string): boolean => existsSync(join(appDir, 'node_modules', name, 'package.json'));
    expect(installed('express')).toBe(true);
    expect(['tsx', 'esbuild', 'typescript', 'vitest', '@types/node', 'playwright-core'].filter(installed)).toEqual([]);
    // The base image is the Node.js major the package requires.
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    for (const s of stages) expect(s.image).toMatch(new RegExp(`^node:${/\d+/.exec(engines)![0]}\\b`));
  }, 300_000);

  it('runs as a non-root user and exposes the default port', () => {
    const user = lastOf(image, 'USER');
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(lastOf(image, 'EXPOSE')).toBe('8080');
    // Local state stays out of the build context, a dist/ built here included.
    const ignored = dockerignore(ROOT);
    for (const path of ['node_modules', '.git', 'test', 'dist', 'node_modules/x/y.js']) expect(ignored(path), path).toBe(true);
    expect(ignored('src/cli.ts')).toBe(false);
  });

  it('starts the devnet on 0.0.0.0 from ENTRYPOINT + CMD; /health, /ready and the HEALTHCHECK pass; SIGINT exits 0', async () => {
    const entrypoint = execForm(lastOf(image, 'ENTRYPOINT') ?? '');
    const cmd = execForm(lastOf(image, 'CMD') ?? '');
    expect(entrypoint?.[0]).toBe('node');
    const argv = [...entrypoint!.slice(1), ...(cmd ?? [])];
    // The port comes from the environment, as `docker run -e WARPGATE_PORT=…` would set it; the
    // health check reads the same variable.
    const port = await freePort();
    const env = npmEnv({ ...image.env, WARPGATE_PORT: String(port) });
    const child = spawn(process.execPath, argv, { cwd: appDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    processes.push({ kill: () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL') });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

    const listening = await waitFor(
      'the image to listen',
      () => {
        if (child.exitCode !== null) throw new Error(`the image exited ${child.exitCode}: ${stderr.slice(-3000)}`);
        const line = stdout.split('\n').find((l) => l.includes('"warpgate listening"'));
        return line === undefined ? undefined : (JSON.parse(line) as { address: string });
      },
      90_000,
    );
    expect(listening.address).toBe(`0.0.0.0:${port}`);
    expect(stdout).toContain('no config file given (--config or WARPGATE_CONFIG): serving an embedded devnet');
    const addresses = ['127.0.0.1', ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4' && !a.internal).map((a) => a.address))];
    for (const address of addresses) expect((await request(`http://${address}:${port}/health`, {}, 5_000)).status, address).toBe(200);
    await waitFor('the devnet to be ready', async () => ((await request(`http://127.0.0.1:${port}/ready`)).status === 200 ? true : undefined), 60_000, 100);

    // The image's own code runs: the validator hosts (signers and avalanchego nodes) are its compiled hosts.
    const kinds = childrenOf(child.pid!).map((pid) => ['signers', 'avalanchego-node'].find((kind) => commandLineOf(pid).join(' ').includes(posix.join('dist', 'devnet', kind, 'host.js'))));
    expect(new Set(kinds)).toEqual(new Set(['signers', 'avalanchego-node']));

    const health = /\bCMD\s+(\[.*\])$/.exec(lastOf(image, 'HEALTHCHECK') ?? '');
    expect(health).not.toBeNull();
    const [healthCommand, ...healthArgs] = execForm(health![1]!)!;
    expect(healthCommand).toBe('node');
    const healthy = await runCommand(process.execPath, healthArgs, { cwd: appDir, env, timeoutMs: 20_000 });
    expect(healthy.code).toBe(0);

    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = await exited;
    clearTimeout(timer);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // With the service gone the health check fails, so it can tell.
    const unhealthy = await runCommand(process.execPath, healthArgs, { cwd: appDir, env, timeoutMs: 20_000 });
    expect(unhealthy.code).toBe(1);
  }, 180_000);
});
