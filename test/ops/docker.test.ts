// What `docker run -p 8080:8080 warpgate` relies on, checked without a Docker engine: the image
// recipe (multi-stage, production dependencies, non-root, health check, the serve entrypoint),
// and `warpgate serve` without a config serving its devnet on every interface (0.0.0.0), so a
// published container port reaches it.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { cleanEnv, logLine, request, startWarpgate, waitFor, type WarpgateProcess } from './helpers.js';

const root = new URL('../../', import.meta.url);
const processes: WarpgateProcess[] = [];
afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages = instructions.map((l, i) => (l.startsWith('FROM ') ? i : -1)).filter((i) => i >= 0);
  const final = instructions.slice(stages[stages.length - 1]);

  it('is multi-stage and installs production dependencies only, from the lockfile', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(instructions.some((l) => /^RUN npm ci\b.*--omit=dev/.test(l))).toBe(true);
    expect(final.some((l) => /^COPY --from=\w+ \/app\/node_modules/.test(l))).toBe(true);
    // Everything the runtime loads is copied: the bin and the sources (worker entries included).
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { bin: Record<string, string> };
    const copied = final.filter((l) => l.startsWith('COPY ') && !l.includes('--from')).map((l) => l.split(/\s+/)[1]);
    for (const needed of ['package.json', 'bin', 'src']) expect(copied).toContain(needed);
    expect(Object.values(pkg.bin)).toContain('bin/warpgate.js');
  });

  it('runs as a non-root user, health-checks /health, and serves on 8080 by default', () => {
    const user = final.find((l) => l.startsWith('USER '));
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)\b/);
    const health = final.find((l) => l.startsWith('HEALTHCHECK '));
    expect(health).toMatch(/\/health/);
    expect(final).toContain('EXPOSE 8080');
    expect(final).toContain('ENTRYPOINT ["node", "bin/warpgate.js"]');
    expect(final).toContain('CMD ["serve"]');
  });

  it('keeps local state out of the build context', () => {
    const ignored = readFileSync(new URL('.dockerignore', root), 'utf8').split('\n').map((l) => l.trim());
    for (const entry of ['node_modules', '.git', 'test']) expect(ignored).toContain(entry);
  });
});

describe('warpgate serve without a config (the container default)', () => {
  it('serves the devnet on 0.0.0.0, honours WARPGATE_PORT, and exits 0 on SIGINT (Ctrl-C in docker run -it)', async () => {
    const proc = startWarpgate(['serve'], cleanEnv({ WARPGATE_PORT: '0' }));
    processes.push(proc);
    const line = await proc.waitForLine((l) => l.includes('"warpgate listening"'), 60_000);
    const listening = JSON.parse(line) as { url: string; address: string };
    const port = Number(new URL(listening.url).port);
    expect(port).toBeGreaterThan(0);
    expect(listening.address).toBe(`0.0.0.0:${port}`);
    expect(logLine(proc.stdoutLines, 'no config file given (--config or WARPGATE_CONFIG): serving an embedded devnet')).toBeDefined();

    // Reachable on loopback and on any other interface this machine has.
    const addresses = ['127.0.0.1', ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4' && !a.internal).map((a) => a.address))];
    for (const address of addresses) {
      const res = await request(`http://${address}:${port}/health`, {}, 5_000);
      expect(res.status, address).toBe(200);
    }
    // Ready once the devnet's signers have connected.
    await waitFor('the devnet to be ready', async () => ((await request(`${listening.url}/ready`)).status === 200 ? true : undefined), 30_000, 100);

    proc.child.kill('SIGINT');
    // exited() fails the test if the process is still running 15 s after the signal.
    expect(await proc.exited(15_000)).toEqual({ code: 0, signal: null });
  });
});
