// An invalid config stops `warpgate serve` before anything starts: exit 2, one stderr line per
// problem naming the key, through the real binary.
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WARPGATE } from '../source-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'warpgate-config-cli-'));
writeFileSync(join(dir, 'empty.json'), '{}');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment without any WARPGATE_* variable of the machine running the tests. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WARPGATE_')));
  return { ...env, ...extra };
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...WARPGATE, ...args], { env, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

describe('warpgate serve with an invalid config', () => {
  it('exits 2 with one line per problem, each naming its key', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({ port: -1, logLevel: 'chatty', upstreams: { node: 'not a url' }, aggregation: { maxConcurrent: 0 }, unknownThing: true }),
    );
    const { code, stdout, stderr } = await run(['serve', '--config', file], cleanEnv({ WARPGATE_WORKERS_THREADS: '999' }));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = stderr.trimEnd().split('\n');
    const keys = ['port', 'logLevel', 'upstreams.node', 'aggregation.maxConcurrent', 'unknownThing', 'WARPGATE_WORKERS_THREADS (workers.threads)'];
    expect(lines).toHaveLength(keys.length);
    for (const key of keys) expect(lines.some((l) => l.startsWith(`config: ${key}: `)), `${key} in\n${stderr}`).toBe(true);
  });

  it('names the file when it cannot be read, also when given by WARPGATE_CONFIG', async () => {
    const missing = join(dir, 'nope.json');
    const { code, stderr } = await run(['serve'], cleanEnv({ WARPGATE_CONFIG: missing }));
    expect(code).toBe(2);
    expect(stderr).toBe(`config: config file ${missing} cannot be read (ENOENT)\n`);
  });
});

describe('every config problem is a config: line and exit 2, never a crash', () => {
  it('a query string, fragment or credentials in upstreams.node', async () => {
    const cases: [value: string, problem: string][] = [
      ['http://127.0.0.1:9650/?token=abc', 'must not have a query string'],
      ['http://127.0.0.1:9650/#x', 'must not have a fragment'],
      ['http://user:pw@127.0.0.1:9650', 'must not carry credentials'],
    ];
    for (const [value, problem] of cases) {
      const { code, stderr } = await run(['serve', '--config', join(dir, 'empty.json')], cleanEnv({ WARPGATE_UPSTREAMS_NODE: value }));
      expect(code, stderr).toBe(2);
      expect(stderr).toMatch(new RegExp(`^config: WARPGATE_UPSTREAMS_NODE \\(upstreams\\.node\\): ${problem}[^\n]*\n$`));
    }
  });

  it('a port already in use, with a config file and on the embedded devnet', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const env = cleanEnv({ WARPGATE_HOST: '127.0.0.1', WARPGATE_PORT: String(port), WARPGATE_WORKERS_THREADS: '1' });
      for (const args of [['serve', '--config', join(dir, 'empty.json')], ['serve']]) {
        const { code, stderr } = await run(args, env);
        expect(code, stderr).toBe(2);
        expect(stderr.split('\n').filter((l) => l.startsWith('config: '))).toEqual([`config: port: 127.0.0.1:${port} is already in use (EADDRINUSE)`]);
      }
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});

describe('names given on the command line are looked up as own keys only', () => {
  it('a command named after an Object.prototype property is an unknown command', async () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      const { code, stderr } = await run([name], cleanEnv());
      expect(code).toBe(1);
      expect(stderr.split('\n')[0]).toBe(`warpgate: unknown command '${name}'`);
    }
  });

  it('an option named after one is an unknown option (exit 2)', async () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      const { code, stderr } = await run(['decode', `--${name}`, 'x'], cleanEnv());
      expect(code).toBe(2);
      expect(stderr).toBe(`warpgate: decode: unknown option --${name}\n`);
    }
  });
});
