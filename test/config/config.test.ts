// The config loader: defaults, file, WARPGATE_* environment, CLI overrides, and one problem line
// per bad key. config.example.json and docs/configuration.md's table are checked against SCHEMA here so
// the three cannot drift apart.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactConfig, type Config } from '../../src/config/config.js';
import { SCHEMA, envName } from '../../src/config/schema.js';
import { renderConfigTable } from '../../src/config/docs.js';
import { DEFAULT_CLIENT_VERSION, formatVersion } from '../../src/p2p/index.js';

const root = new URL('../../', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'warpgate-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
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

/** Dotted key paths of the leaves of a parsed config file (arrays are leaves). */
function leafKeys(obj: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}.${k}` : k;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? leafKeys(v as Record<string, unknown>, key) : [key];
  });
}

function valueAt(config: Config, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], config);
}

const SUBNET = 'XDiKeN1oE1chXBRarLUspZngsxeJVma5R3JBE92L67GRqdK6H';

describe('config.example.json and docs/configuration.md', () => {
  const examplePath = new URL('config.example.json', root);
  const example = JSON.parse(readFileSync(examplePath, 'utf8')) as Record<string, unknown>;

  it('lists exactly the SCHEMA keys', () => {
    expect(leafKeys(example).sort()).toEqual(Object.keys(SCHEMA).sort());
  });

  it('loads without a problem, and every value it leaves at the default equals SCHEMA', () => {
    const config = loadConfig({ file: examplePath.pathname, env: {} });
    for (const key of Object.keys(SCHEMA)) {
      const given = leafKeys(example).includes(key) ? valueAt(config, key) : undefined;
      expect(given, key).toBeDefined();
    }
    // The example shows a real deployment's upstreams, one peer and one destination chain; every other key is at its default.
    const differs = Object.entries(SCHEMA)
      .filter(([key, spec]) => JSON.stringify(valueAt(config, key)) !== JSON.stringify(spec.default))
      .map(([key]) => key)
      .sort();
    expect(differs).toEqual(['destinations', 'peers', 'upstreams.dataApi', 'upstreams.metricsApi', 'upstreams.node']);
  });

  it('docs/configuration.md holds the configuration table rendered from SCHEMA, one row per key', () => {
    const readme = readFileSync(new URL('docs/configuration.md', root), 'utf8');
    const table = renderConfigTable();
    expect(readme.includes(table), 'docs/configuration.md lacks the current table: regenerate it with the command in src/config/docs.ts').toBe(true);
    for (const key of Object.keys(SCHEMA)) expect(table).toContain(`| \`${key}\` | \`${envName(key)}\` |`);
  });
});

describe('loadConfig', () => {
  it('with nothing given, every key has its SCHEMA default', () => {
    const config = loadConfig({ env: {} });
    for (const [key, spec] of Object.entries(SCHEMA)) expect(valueAt(config, key), key).toEqual(spec.default);
  });

  it('names environment variables after the key path', () => {
    expect(envName('port')).toBe('WARPGATE_PORT');
    expect(envName('aggregation.deadlineMs')).toBe('WARPGATE_AGGREGATION_DEADLINE_MS');
    expect(envName('upstreams.apiKey')).toBe('WARPGATE_UPSTREAMS_API_KEY');
    expect(new Set(Object.keys(SCHEMA).map(envName)).size).toBe(Object.keys(SCHEMA).length);
  });

  it('layers defaults < file < environment < overrides', () => {
    const file = writeConfig('layers.json', { port: 9000, logLevel: 'debug', aggregation: { deadlineMs: 3000 }, workers: { threads: 4 } });
    const config = loadConfig({
      file,
      env: { WARPGATE_PORT: '9100', WARPGATE_AGGREGATION_DEADLINE_MS: '4000' },
      overrides: { port: 9200 },
    });
    expect(config.port).toBe(9200);
    expect(config.aggregation.deadlineMs).toBe(4000);
    expect(config.logLevel).toBe('debug');
    expect(config.workers.threads).toBe(4);
    expect(config.aggregation.requestTimeoutMs).toBe(SCHEMA['aggregation.requestTimeoutMs'].default);
  });

  it('reads the file named by WARPGATE_CONFIG', () => {
    const file = writeConfig('by-env.json', { shutdownGraceMs: 1234 });
    expect(loadConfig({ env: { WARPGATE_CONFIG: file } }).shutdownGraceMs).toBe(1234);
  });

  it('parses every kind of environment value', () => {
    const config = loadConfig({
      env: {
        WARPGATE_PUBLIC_MODE: 'true',
        WARPGATE_CORS_ORIGINS: 'https://a.example, https://b.example',
        WARPGATE_PEERS: '[{"url":"ws://127.0.0.1:9700"},{"url":"wss://signer.example/v1"}]',
        WARPGATE_UPSTREAMS_NODE: 'http://127.0.0.1:9650/',
        WARPGATE_UPSTREAMS_API_KEY: 'k-123',
        WARPGATE_LOCAL_NETWORK_ID: '12345',
        WARPGATE_READINESS_SUBNETS: SUBNET,
        WARPGATE_BLS_BACKEND: 'noble',
      },
    });
    expect(config.publicMode).toBe(true);
    expect(config.cors.origins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.peers).toEqual([{ url: 'ws://127.0.0.1:9700' }, { url: 'wss://signer.example/v1' }]);
    expect(config.upstreams.node).toBe('http://127.0.0.1:9650');
    expect(config.upstreams.apiKey).toBe('k-123');
    expect(config.localNetworkId).toBe(12345);
    expect(config.readiness.subnets).toEqual([SUBNET]);
    expect(config.bls.backend).toBe('noble');
    // An empty variable clears an optional value set by the file.
    const file = writeConfig('clear.json', { upstreams: { apiKey: 'from-file' } });
    expect(loadConfig({ file, env: { WARPGATE_UPSTREAMS_API_KEY: '' } }).upstreams.apiKey).toBeNull();
  });

  it('collects every problem, one line each, naming the key', () => {
    const file = writeConfig('bad.json', {
      port: 70000,
      logLevel: 'loud',
      upstreams: { node: 'ftp://node', apiKey: '' },
      peers: [{ url: 'http://not-ws' }, { url: 'ws://ok', weight: 3 }],
      workers: { threads: 'two' },
      readiness: { subnets: ['not-an-id'] },
      publicMode: 'yes',
      limits: { bodyBytes: 1.5 },
      mystery: 1,
      aggregation: { surprise: true },
    });
    const problems = problemsOf(() => loadConfig({ file, env: { WARPGATE_SHUTDOWN_GRACE_MS: 'soon' } }));
    const expectedKeys = [
      'port',
      'logLevel',
      'upstreams.node',
      'upstreams.apiKey',
      'peers[0].url',
      'peers[1]',
      'workers.threads',
      'readiness.subnets',
      'publicMode',
      'limits.bodyBytes',
      'mystery',
      'aggregation.surprise',
      'WARPGATE_SHUTDOWN_GRACE_MS (shutdownGraceMs)',
    ];
    expect(problems).toHaveLength(expectedKeys.length);
    for (const key of expectedKeys) expect(problems.some((p) => p.startsWith(`${key}: `)), `${key} in ${problems.join(' / ')}`).toBe(true);
    for (const p of problems) expect(p).not.toContain('\n');
  });

  it('checks keys against each other', () => {
    expect(problemsOf(() => loadConfig({ env: {}, overrides: { 'aggregation.deadlineMs': 1000, 'aggregation.requestTimeoutMs': 2000 } }))).toEqual([
      'aggregation.requestTimeoutMs: must not exceed aggregation.deadlineMs',
    ]);
    expect(problemsOf(() => loadConfig({ env: {}, overrides: { 'limits.headersTimeoutMs': 30_000, 'limits.requestTimeoutMs': 10_000 } }))).toEqual([
      'limits.headersTimeoutMs: must not exceed limits.requestTimeoutMs',
    ]);
  });

  it('reads p2p.peers as {nodeId, address} entries, from the file and as JSON from the environment, naming a bad entry', () => {
    const peers = [
      { nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', address: '203.0.113.7:9651' },
      { nodeId: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', address: 'validator-2.example.org:9651' },
    ];
    expect(loadConfig({ env: {}, overrides: { 'p2p.peers': peers } }).p2p.peers).toEqual(peers);
    expect(loadConfig({ env: { WARPGATE_P2P_PEERS: JSON.stringify(peers.slice(0, 1)) } }).p2p.peers).toEqual(peers.slice(0, 1));
    const bad = [
      { nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lh', address: '203.0.113.7:9651' },
      { nodeId: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', address: '203.0.113.7' },
      { nodeId: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', address: '[::1]:9651', url: 'x' },
      'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ',
    ];
    const problems = problemsOf(() => loadConfig({ env: {}, overrides: { 'p2p.peers': bad } }));
    expect(problems).toEqual([
      expect.stringMatching(/^p2p\.peers\[0\]\.nodeId: .* is not a NodeID \(.*checksum/),
      expect.stringMatching(/^p2p\.peers\[1\]\.address: '203\.0\.113\.7' is not host:port/),
      "p2p.peers[2]: unknown key 'url'",
      expect.stringMatching(/^p2p\.peers\[3\]\.nodeId: /),
      expect.stringMatching(/^p2p\.peers\[3\]\.address: /),
    ]);
    expect(problemsOf(() => loadConfig({ env: { WARPGATE_P2P_PEERS: 'NodeID-x@1.2.3.4:9651' } }))[0]).toMatch(/^WARPGATE_P2P_PEERS \(p2p\.peers\): must be JSON/);
  });

  it('claims by default the newest avalanchego version the transport knows', () => {
    expect(loadConfig({ env: {} }).p2p.version).toBe(formatVersion(DEFAULT_CLIENT_VERSION));
  });

  it('checks the p2p identity files come as a pair, the claimed version, and the 10 s reconnect floor', () => {
    expect(problemsOf(() => loadConfig({ env: {}, overrides: { 'p2p.tlsCertFile': '/etc/warpgate/staker.crt' } }))).toEqual([
      'p2p.tlsKeyFile: p2p.tlsCertFile and p2p.tlsKeyFile are set together or not at all',
    ]);
    expect(loadConfig({ env: {}, overrides: { 'p2p.tlsCertFile': '/a.crt', 'p2p.tlsKeyFile': '/a.key' } }).p2p.tlsKeyFile).toBe('/a.key');
    expect(problemsOf(() => loadConfig({ env: {}, overrides: { 'p2p.version': '1.15' } }))).toEqual(["p2p.version: '1.15' is not a version like avalanchego/1.15.0"]);
    expect(loadConfig({ env: { WARPGATE_P2P_VERSION: 'avalanchego/1.14.0' } }).p2p.version).toBe('avalanchego/1.14.0');
    expect(problemsOf(() => loadConfig({ env: {}, overrides: { 'p2p.reconnectMinIntervalMs': 5000 } }))[0]).toMatch(/^p2p\.reconnectMinIntervalMs: must be from 10000/);
    expect(problemsOf(() => loadConfig({ env: {}, overrides: { 'p2p.reconnectMinIntervalMs': 60_000, 'p2p.reconnectMaxMs': 30_000 } }))).toEqual([
      'p2p.reconnectMaxMs: must not be below p2p.reconnectMinIntervalMs',
    ]);
  });

  it('rejects a subnet ID with a bad checksum', () => {
    const wrong = SUBNET.slice(0, -1) + (SUBNET.endsWith('H') ? 'J' : 'H');
    const [problem] = problemsOf(() => loadConfig({ env: { WARPGATE_READINESS_SUBNETS: wrong } }));
    expect(problem).toMatch(/^WARPGATE_READINESS_SUBNETS \(readiness\.subnets\): .*(checksum|cb58 ID)/);
  });

  it('reads peerAdmission.allowedKeys as BLS public keys, normalized, and names a bad one', () => {
    const key = 'AB'.repeat(48);
    const config = loadConfig({ env: { WARPGATE_PEER_ADMISSION_ALLOWED_KEYS: `0x${key}, ${'cd'.repeat(48)}`, WARPGATE_PEER_ADMISSION_MODE: 'any' } });
    expect(config.peerAdmission.allowedKeys).toEqual(['ab'.repeat(48), 'cd'.repeat(48)]);
    expect(config.peerAdmission.mode).toBe('any');
    expect(problemsOf(() => loadConfig({ env: {}, overrides: { 'peerAdmission.allowedKeys': ['ab'.repeat(47)] } }))).toEqual([
      `peerAdmission.allowedKeys: '${'ab'.repeat(47)}' is not a BLS public key: 96 hex digits (48 bytes), 0x optional`,
    ]);
    expect(problemsOf(() => loadConfig({ env: { WARPGATE_PEER_ADMISSION_MODE: 'everyone' } }))[0]).toMatch(/^WARPGATE_PEER_ADMISSION_MODE \(peerAdmission\.mode\): must be one of validators, any/);
  });

  it('refuses URLs the service cannot use as given, naming the part and never its value', () => {
    const cases: [key: string, value: string, problem: RegExp][] = [
      ['upstreams.node', 'http://127.0.0.1:9650/?key=node-secret', /^upstreams\.node: must not have a query string/],
      ['upstreams.node', 'http://127.0.0.1:9650?', /^upstreams\.node: must not have a query string/],
      ['upstreams.node', 'http://127.0.0.1:9650#frag-secret', /^upstreams\.node: must not have a fragment/],
      ['upstreams.node', 'http://user:pw-secret@127.0.0.1:9650', /^upstreams\.node: must not carry credentials/],
      ['upstreams.node', 'http://127.0.0.1:0', /^upstreams\.node: port 0 /],
      ['upstreams.dataApi', 'https://glacier.example/?token=q-secret', /^upstreams\.dataApi: must not have a query string/],
      ['upstreams.metricsApi', 'https://metrics.example/#x', /^upstreams\.metricsApi: must not have a fragment/],
      ['upstreams.dataApi', 'http://glacier.example:0', /^upstreams\.dataApi: port 0 /],
    ];
    for (const [key, value, problem] of cases) {
      const problems = problemsOf(() => loadConfig({ env: {}, overrides: { [key]: value } }));
      expect(problems, `${key} = ${value}`).toHaveLength(1);
      expect(problems[0]).toMatch(problem);
      expect(problems[0]).not.toMatch(/secret/);
    }
    const peers = problemsOf(() => loadConfig({ env: { WARPGATE_PEERS: '[{"url":"ws://127.0.0.1:9700/#x"},{"url":"ws://127.0.0.1:0"}]' } }));
    expect(peers).toEqual(['WARPGATE_PEERS (peers)[0].url: must not have a fragment (#…)', 'WARPGATE_PEERS (peers)[1].url: port 0 is not a port to connect to']);
  });

  it('keeps the URLs it accepts in normalized form, without a trailing slash', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        'upstreams.node': 'HTTP://Node.Example:9650/base/',
        'upstreams.dataApi': 'https://user:pw@glacier.example/',
        'upstreams.metricsApi': 'https://metrics.example/v a/',
        peers: [{ url: 'ws://signer:pw@127.0.0.1:9700/?token=t' }],
      },
    });
    expect(config.upstreams.node).toBe('http://node.example:9650/base');
    expect(config.upstreams.dataApi).toBe('https://user:pw@glacier.example');
    expect(config.upstreams.metricsApi).toBe('https://metrics.example/v%20a');
    expect(config.peers).toEqual([{ url: 'ws://signer:pw@127.0.0.1:9700/?token=t' }]);
  });

  it('checks host and peerPath by their syntax', () => {
    for (const host of ['not a host!', ' 127.0.0.1', '999.1.1.1', 'under_score.example', '-dash.example', '']) {
      const problems = problemsOf(() => loadConfig({ env: { WARPGATE_HOST: host } }));
      expect(problems, host).toHaveLength(1);
      expect(problems[0]).toMatch(/^WARPGATE_HOST \(host\): /);
    }
    for (const host of ['0.0.0.0', '127.0.0.1', '::', '::1', 'localhost', 'warpgate.example.com', 'fe80::1']) {
      expect(loadConfig({ env: { WARPGATE_HOST: host } }).host).toBe(host);
    }
    for (const path of ['v1/peers', '/v1/peers?x=1', '/v1/peers#x', '/with space', '/a/../peers', '//peers']) {
      const problems = problemsOf(() => loadConfig({ env: {}, overrides: { peerPath: path } }));
      expect(problems, path).toHaveLength(1);
      expect(problems[0]).toMatch(/^peerPath: .*must be an absolute URL path/);
    }
    expect(loadConfig({ env: {}, overrides: { peerPath: '/peers/v2' } }).peerPath).toBe('/peers/v2');
  });

  it('looks keys up as own keys only: Object.prototype names are unknown keys', () => {
    const file = writeConfig('proto.json', '{"constructor": 1, "__proto__": {"port": 1}, "aggregation": {"toString": 2}}');
    expect(problemsOf(() => loadConfig({ file, env: {} }))).toEqual(['constructor: unknown key', '__proto__: unknown key', 'aggregation.toString: unknown key']);
    expect(problemsOf(() => loadConfig({ env: {}, overrides: { hasOwnProperty: 1 } as Record<string, unknown> }))).toEqual(['hasOwnProperty: unknown key']);
  });

  it('reports an unreadable or malformed file in one line naming it', () => {
    expect(problemsOf(() => loadConfig({ file: join(dir, 'missing.json'), env: {} }))).toEqual([`config file ${join(dir, 'missing.json')} cannot be read (ENOENT)`]);
    const broken = writeConfig('broken.json', '{"port": 80,');
    expect(problemsOf(() => loadConfig({ file: broken, env: {} }))[0]).toMatch(/^config file .*broken\.json is not valid JSON/);
    const list = writeConfig('list.json', '[1]');
    expect(problemsOf(() => loadConfig({ file: list, env: {} }))).toEqual([`config file ${list} must hold a JSON object`]);
  });
});

describe('redactConfig', () => {
  it('hides the API key and credentials or query strings in URLs, and nothing else', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        'upstreams.apiKey': 'super-secret-key',
        'upstreams.node': 'https://node.example/ext',
        'upstreams.dataApi': 'https://user:pw-secret@glacier.example',
        'upstreams.metricsApi': 'https://metrics.avax.network',
        peers: [{ url: 'ws://signer:p-secret@127.0.0.1:9700/?token=tok-secret' }],
      },
    });
    const text = JSON.stringify(redactConfig(config));
    for (const secret of ['super-secret-key', 'pw-secret', 'tok-secret', 'p-secret']) expect(text).not.toContain(secret);
    const redacted = redactConfig(config);
    expect(redacted.upstreams.apiKey).toBe('[redacted]');
    expect(redacted.upstreams.metricsApi).toBe('https://metrics.avax.network');
    expect(redacted.upstreams.node).toBe('https://node.example/ext');
    expect(redacted.upstreams.dataApi).toBe('https://redacted:redacted@glacier.example');
    expect(redacted.peers[0]!.url).toBe('ws://redacted:redacted@127.0.0.1:9700/?redacted');
    expect(redacted.port).toBe(config.port);
    // The original is untouched.
    expect(config.upstreams.apiKey).toBe('super-secret-key');
  });
});
