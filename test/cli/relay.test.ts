// `warpgate relay` through the real binary: its help, and the static mistakes that stop it
// before anything starts (exit 2, `config: …` lines naming the place): no config, no route, a
// route to a chain not listed, a key that is not there, a bad address. A key's text never
// reaches the output.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WARPGATE } from '../source-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'warpgate-relay-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const C_CHAIN = 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp';
const L1 = '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm';
const OTHER = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';
const TELEPORTER = '0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf';

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WARPGATE_'))), ...extra };
}

function run(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...WARPGATE, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

function configFile(name: string, relayer: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ port: 0, host: '127.0.0.1', p2p: { enabled: false }, relayer }));
  return file;
}

const chains = [
  { blockchainId: C_CHAIN, rpcUrl: 'http://127.0.0.1:9/ext/bc/C/rpc', teleporterAddress: TELEPORTER },
  { blockchainId: L1, rpcUrl: 'http://127.0.0.1:9/ext/bc/l1/rpc', teleporterAddress: TELEPORTER },
];

describe('warpgate relay', () => {
  it('--help says what it needs and serves; the command list names it', async () => {
    const help = await run(['relay', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: warpgate relay --config FILE/);
    expect(help.stdout).toContain('POST /relay');
    expect((await run(['--help'])).stdout).toMatch(/\n {2}relay {4}relay Teleporter messages/);
  });

  it('without a config file or a route: exit 2 saying so', async () => {
    const none = await run(['relay']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^relay: a config file is needed \(--config FILE or WARPGATE_CONFIG\)/);
    const noRoute = await run(['relay', '--config', configFile('empty.json', {})]);
    expect(noRoute).toMatchObject({ code: 2, stderr: 'config: relayer.routes: warpgate relay needs at least one route (docs/relayer.md)\n' });
  });

  it('a route to a chain not listed, no key, a bad address: exit 2, one config: line each', async () => {
    const file = configFile('bad.json', { chains: [...chains, { ...chains[0], blockchainId: OTHER, teleporterAddress: '0xnope' }], routes: [{ source: C_CHAIN, destination: L1 }] });
    const bad = await run(['relay', '--config', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("config: relayer.chains[2].teleporterAddress: '0xnope' is not an address (0x and 40 hex digits)\n");
    const rules = await run(['relay', '--config', configFile('rules.json', { chains, routes: [{ source: C_CHAIN, destination: OTHER }] })]);
    expect(rules.code).toBe(2);
    expect(rules.stderr.trimEnd().split('\n')).toEqual([
      `config: relayer.routes[0].destination: ${OTHER} is not a chain of relayer.chains`,
      'config: relayer.keys: relayer.routes needs at least one key to deliver with',
    ]);
  });

  it('a key that is not there, or not a key: exit 2 naming the entry, never quoting it', async () => {
    const keyFile = join(dir, 'bad.key');
    writeFileSync(keyFile, 'secret-words-that-are-not-a-key');
    const file = configFile('keys.json', { chains, routes: [{ source: C_CHAIN, destination: L1 }], keys: [{ env: 'RELAYER_TEST_KEY' }, { file: keyFile }] });
    const { code, stdout, stderr } = await run(['relay', '--config', file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual([
      'config: relayer.keys[0]: the environment variable RELAYER_TEST_KEY is not set',
      `config: relayer.keys[1]: file ${keyFile} does not hold a private key (64 hex digits, 0x optional)`,
    ]);
    expect(stderr).not.toContain('secret-words');
  });
});
