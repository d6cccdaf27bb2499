// The harness itself (interop/build.sh, `interop network`): it says in one line why it cannot
// build, and a start that times out keeps the network's directory and shows each node's log.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILD_DIR, INTEROP_BIN, REPO } from './paths.js';
import { nodeProcessesOf } from './processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'warpgate-interop-harness-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function stderrLines(stderr: string): string[] {
  return stderr.trim().split('\n').filter((l) => l !== '');
}

describe('interop/build.sh', () => {
  it('fails with one line saying why when Go is missing', () => {
    const run = spawnSync('bash', [`${REPO}/interop/build.sh`], { encoding: 'utf8', env: { ...process.env, PATH: '/usr/bin:/bin' } });
    expect(run.status).toBe(1);
    expect(stderrLines(run.stderr)).toEqual([expect.stringMatching(/^interop: Go is not installed/)]);
  });

  it('fails with one line saying why when the module proxy cannot be reached', () => {
    // An empty module cache and a proxy nobody listens on: the first module download fails.
    const env = { ...process.env, GOMODCACHE: join(scratch, 'modcache'), GOPROXY: 'http://127.0.0.1:9', GOFLAGS: '-mod=mod' };
    const run = spawnSync('bash', [`${REPO}/interop/build.sh`], { encoding: 'utf8', env, timeout: 120_000 });
    expect(run.status).toBe(1);
    expect(stderrLines(run.stderr)).toEqual([expect.stringMatching(/^interop: cannot fetch Go modules through GOPROXY=http:\/\/127\.0\.0\.1:9: .*(refused|dial tcp)/)]);
  }, 150_000);
});

describe('interop network', () => {
  it('keeps the directory of a start that timed out, stops its nodes and prints their log tails', () => {
    const root = join(scratch, 'networks');
    const run = spawnSync(INTEROP_BIN, ['network', '-avalanchego', `${BUILD_DIR}/avalanchego`, '-plugin-dir', `${BUILD_DIR}/plugins`, '-root-dir', root, '-start-timeout', '4s'], {
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const dirs = readdirSync(root);
    expect(dirs).toHaveLength(1);
    const dir = join(root, dirs[0]!);
    expect(run.stderr).toContain(`its directory is kept at ${dir}`);
    expect(run.stderr).toMatch(/network did not start within \d+s/);
    // Each of the four Primary Network nodes shows the end of its log.
    expect(run.stderr.match(/^---- NodeID-\S+ \(.*\) last lines of logs\/main\.log$/gm)).toHaveLength(4);
    expect(existsSync(join(dir, 'KEPT-AFTER-FAILED-START'))).toBe(true);
    expect(nodeProcessesOf(dir)).toEqual([]);
  }, 200_000);
});
