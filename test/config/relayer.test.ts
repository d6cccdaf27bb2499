// The relayer section of the config: chains, routes, keys by reference, and the static mistakes
// the CLI turns into `config: …` lines and exit 2 (a route to a chain not listed, no key, a bad
// address, a key that is not there). A key's text never appears in a problem or a config dump.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactConfig } from '../../src/config/config.js';
import { loadRelayerKeys } from '../../src/config/relayer-keys.js';

const dir = mkdtempSync(join(tmpdir(), 'warpgate-relayer-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const C_CHAIN = 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp';
const L1 = '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm';
const TELEPORTER = '0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf';
const KEY = '0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027';

function chains() {
  return [
    { blockchainId: C_CHAIN, rpcUrl: 'http://127.0.0.1:9650/ext/bc/C/rpc', wsUrl: 'ws://127.0.0.1:9650/ext/bc/C/ws', teleporterAddress: TELEPORTER },
    { blockchainId: L1, rpcUrl: 'https://rpc.example/ext/bc/l1/rpc?key=provider-secret', teleporterAddress: TELEPORTER },
  ];
}

function load(relayer: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ relayer }));
  return loadConfig({ file, env });
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('relayer config', () => {
  it('reads chains and routes with their defaults, addresses lower-cased', () => {
    const config = load({ chains: chains(), routes: [{ source: C_CHAIN, destination: L1 }, { source: L1, destination: C_CHAIN, startHeight: 120, maxRequiredGasLimit: 500_000, allowedOriginSenders: ['0xABCDEF0000000000000000000000000000000001'] }], keys: [{ env: 'RELAYER_KEY' }] });
    expect(config.relayer.chains[0]!.teleporterAddress).toBe(TELEPORTER.toLowerCase());
    expect(config.relayer.routes[0]).toEqual({ source: C_CHAIN, destination: L1, allowedOriginSenders: [], allowedDestinations: [], maxRequiredGasLimit: 2_000_000, startHeight: 'head' });
    expect(config.relayer.routes[1]).toMatchObject({ startHeight: 120, maxRequiredGasLimit: 500_000, allowedOriginSenders: ['0xabcdef0000000000000000000000000000000001'] });
    expect(config.relayer.manualRelayToken).toBeNull();
  });

  it('no routes is no relayer, and needs nothing else', () => {
    expect(load({}).relayer.routes).toEqual([]);
  });

  it('a route naming a chain not listed, no key, a bad address, a duplicate: one line each, naming the place', () => {
    const problems = problemsOf(() =>
      load({
        chains: [...chains(), { ...chains()[0], teleporterAddress: '0x1234' }],
        routes: [{ source: C_CHAIN, destination: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM' }, { source: L1, destination: C_CHAIN, startHeight: 'tail' }],
      }),
    );
    expect(problems).toContain("relayer.chains[2].teleporterAddress: '0x1234' is not an address (0x and 40 hex digits)");
    expect(problems).toContain('relayer.routes[1].startHeight: must be "head" or a block number');
    // The cross-key rules run once every value is valid: fix the values, then they show.
    const second = problemsOf(() => load({ chains: chains(), routes: [{ source: C_CHAIN, destination: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM' }] }));
    expect(second).toEqual([
      'relayer.routes[0].destination: 2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM is not a chain of relayer.chains',
      'relayer.keys: relayer.routes needs at least one key to deliver with',
    ]);
    expect(problemsOf(() => load({ chains: [chains()[0], chains()[0]] }))).toEqual([`relayer.chains[1].blockchainId: blockchainId ${C_CHAIN} is listed twice`]);
  });

  it('a key is a reference, never a value: {"key": …} is refused, and exactly one of file and env', () => {
    expect(problemsOf(() => load({ keys: [{ key: KEY }] }))[0]).toMatch(/^relayer\.keys\[0\]: unknown key 'key' \(a key is \{"file": "\/path"\} or \{"env": "NAME"\}/);
    expect(problemsOf(() => load({ keys: [{ file: '/a', env: 'B' }] }))).toEqual(['relayer.keys[0]: must name exactly one of "file" and "env"']);
    expect(problemsOf(() => load({ manualRelayToken: 'short' }))).toEqual(['relayer.manualRelayToken: must be a string of at least 16 characters, or null']);
  });

  it('loads keys from a file and the environment; a missing or bad one names its entry and never quotes it', () => {
    const good = join(dir, 'good.key');
    writeFileSync(good, `${KEY.slice(2)}\n`);
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, 'not-a-key-but-secret-text');
    const config = load({ keys: [{ file: good }, { env: 'K2' }] });
    const keys = loadRelayerKeys(config.relayer, { K2: '0x' + '11'.repeat(32) });
    expect(keys.map((k) => k.address)).toEqual(['0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc', '0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a']);
    expect(keys[0]!.privateKey()).toBe(KEY);
    // Whatever prints it (a log line, a config dump, a debugger) sees the address only.
    for (const text of [JSON.stringify(keys), inspect(keys), String(keys[0])]) expect(text).not.toContain(KEY.slice(2));

    const problems = problemsOf(() =>
      loadRelayerKeys(load({ keys: [{ file: join(dir, 'absent.key') }, { env: 'UNSET' }, { file: bad }, { env: 'ZERO' }, { file: good }] }).relayer, { ZERO: '0'.repeat(64) }),
    );
    expect(problems).toEqual([
      `relayer.keys[0]: the key file ${join(dir, 'absent.key')} cannot be read (ENOENT)`,
      'relayer.keys[1]: the environment variable UNSET is not set',
      `relayer.keys[2]: file ${bad} does not hold a private key (64 hex digits, 0x optional)`,
      'relayer.keys[3]: env ZERO holds a value that is not a secp256k1 private key',
    ]);
    expect(problems.join('\n')).not.toContain('secret-text');
    const twice = problemsOf(() => loadRelayerKeys(load({ keys: [{ file: good }, { env: 'SAME' }] }).relayer, { SAME: KEY }));
    expect(twice).toEqual([`relayer.keys[1]: the same key as relayer.keys[0] (${keys[0]!.address})`]);
  });

  it('a config dump redacts the token and the URLs’ queries', () => {
    const config = load({ chains: chains(), manualRelayToken: 'a-long-enough-bearer-token', keys: [{ env: 'RELAYER_KEY' }] });
    const dumped = JSON.stringify(redactConfig(config));
    expect(dumped).not.toContain('a-long-enough-bearer-token');
    expect(dumped).not.toContain('provider-secret');
    expect(redactConfig(config).relayer.keys).toEqual([{ env: 'RELAYER_KEY' }]);
  });

  it('WARPGATE_RELAYER_ROUTES and friends are JSON', () => {
    const config = loadConfig({ env: { WARPGATE_RELAYER_CHAINS: JSON.stringify(chains()), WARPGATE_RELAYER_ROUTES: JSON.stringify([{ source: L1, destination: C_CHAIN }]), WARPGATE_RELAYER_KEYS: '[{"env":"K"}]' } });
    expect(config.relayer.routes).toHaveLength(1);
  });
});
