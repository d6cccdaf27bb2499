// Loads and validates the configuration: defaults, then the file (--config or WARPGATE_CONFIG),
// then WARPGATE_* environment variables. Every problem is collected, so an operator fixes them
// all in one go; the CLI prints one line per problem and exits 2.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { cb58IdProblem } from './cb58-check.js';
import { SCHEMA, envName, type KeySpec } from './schema.js';

export interface Config {
  port: number;
  host: string;
  logLevel: string;
  upstreams: { node: string | null; dataApi: string | null; metricsApi: string | null; apiKey: string | null };
  localNetworkId: number | null;
  peers: { url: string }[];
  peerPath: string;
  bls: { backend: 'blst' | 'noble' };
  workers: { threads: number; maxQueue: number };
  aggregation: { deadlineMs: number; requestTimeoutMs: number; fanOutExtraPercent: number; hedgeMs: number; maxConcurrent: number };
  validatorSets: { currentTtlMs: number; currentMaxStaleMs: number; maxEntries: number; nodeTimeoutMs: number; maxLookback: number };
  signatureCache: { maxMessages: number; maxSignatures: number; ttlMs: number };
  readiness: { subnets: string[]; quorumPercentage: number };
  peerAdmission: {
    mode: 'validators' | 'any';
    allowedKeys: string[];
    setRefreshMs: number;
    maxInboundPeers: number;
    maxPendingHandshakes: number;
    maxPendingPerIp: number;
    handshakesPerMinutePerIp: number;
    helloTimeoutMs: number;
  };
  publicMode: boolean;
  rateLimit: { requestsPerMinute: number; keyedRequestsPerMinute: number; aggregationsPerMinute: number };
  proxy: { timeoutMs: number; maxResponseBytes: number; cacheTtlMs: number };
  limits: { bodyBytes: number; justificationBytes: number; headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  cors: { origins: string[] };
  shutdownGraceMs: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

type Source = 'file' | 'env';

function checkValue(key: string, spec: KeySpec, raw: unknown, source: Source, problems: string[]): unknown {
  const where = source === 'env' ? `${envName(key)} (${key})` : key;
  const t = spec.type;
  const fail = (why: string): undefined => {
    problems.push(`${where}: ${why}`);
    return undefined;
  };
  // Environment values are strings; read them as the JSON they would be in the file.
  let value = raw;
  if (source === 'env' && typeof raw === 'string') {
    if (t.kind === 'int' || t.kind === 'optionalInt') value = raw === '' && t.kind === 'optionalInt' ? null : /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    else if (t.kind === 'bool') value = raw === 'true' ? true : raw === 'false' ? false : raw;
    else if (t.kind === 'stringList' || t.kind === 'idList' || t.kind === 'blsKeyList') value = raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim());
    else if (t.kind === 'peerList') {
      try {
        value = JSON.parse(raw);
      } catch {
        return fail('must be JSON, e.g. [{"url":"ws://127.0.0.1:9700"}]');
      }
    } else if ((t.kind === 'optionalUrl' || t.kind === 'optionalSecret') && raw === '') value = null;
  }
  switch (t.kind) {
    case 'int':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return fail(`must be an integer, got ${JSON.stringify(value)}`);
      if (value < t.min || value > t.max) return fail(`must be from ${t.min} to ${t.max}, got ${value}`);
      return value;
    case 'optionalInt':
      if (value === null) return null;
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return fail(`must be an integer or null, got ${JSON.stringify(value)}`);
      if (value < t.min || value > t.max) return fail(`must be from ${t.min} to ${t.max}, got ${value}`);
      return value;
    case 'bool':
      return typeof value === 'boolean' ? value : fail(`must be true or false, got ${JSON.stringify(value)}`);
    case 'string':
      if (typeof value !== 'string' || value === '') return fail('must be a non-empty string');
      if (t.enum && !t.enum.includes(value)) return fail(`must be one of ${t.enum.join(', ')}, got '${value}'`);
      {
        const problem = STRING_RULES.get(key)?.(value);
        return problem === undefined ? value : fail(problem);
      }
    case 'optionalSecret':
      if (value === null) return null;
      return typeof value === 'string' && value !== '' ? value : fail('must be a non-empty string or null');
    case 'url':
    case 'optionalUrl':
      if (value === null && t.kind === 'optionalUrl') return null;
      return checkUrl(value, t.protocols, fail, { query: false, credentials: !NO_CREDENTIALS.has(key) });
    case 'stringList':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== '')) return fail('must be a list of non-empty strings');
      return value;
    case 'idList': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return fail('must be a list of cb58 IDs');
      const bad = value.map((v: string) => cb58IdProblem(v)).filter((p) => p !== undefined);
      return bad.length > 0 ? fail(bad.join('; ')) : value;
    }
    case 'blsKeyList': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return fail('must be a list of BLS public keys (hex, 48 bytes)');
      const bad = value.filter((v: string) => !/^(0x)?[0-9a-fA-F]{96}$/.test(v));
      if (bad.length > 0) return fail(`'${String(bad[0]).slice(0, 100)}' is not a BLS public key: 96 hex digits (48 bytes), 0x optional`);
      return value.map((v: string) => v.replace(/^0x/i, '').toLowerCase());
    }
    case 'peerList': {
      if (!Array.isArray(value)) return fail('must be a list of {"url": "ws://…"}');
      const out: { url: string }[] = [];
      value.forEach((p, i) => {
        const url = p && typeof p === 'object' ? (p as { url?: unknown }).url : undefined;
        const extra = p && typeof p === 'object' ? Object.keys(p).filter((k) => k !== 'url') : [];
        if (extra.length > 0) problems.push(`${where}[${i}]: unknown key '${extra[0]}'`);
        const ok = checkUrl(
          url,
          ['ws:', 'wss:'],
          (why) => {
            problems.push(`${where}[${i}].url: ${why}`);
            return undefined;
          },
          { query: true, credentials: true },
        );
        if (typeof ok === 'string') out.push({ url: ok });
      });
      return out;
    }
  }
}

/**
 * URLs whose client cannot send credentials: the P-Chain client and the network-ID lookup call
 * the node with fetch, which refuses a URL with credentials, so they would be dropped or fail.
 */
const NO_CREDENTIALS: ReadonlySet<string> = new Set(['upstreams.node']);

/**
 * A URL the service can use as given, returned in its normalized form (what every client of it
 * then sees) without a trailing slash. Upstream base URLs carry no query or fragment: requests
 * append a path to them. A fragment is never sent, so it is always a mistake.
 */
function checkUrl(value: unknown, protocols: readonly string[], fail: (why: string) => undefined, allow: { query: boolean; credentials: boolean }): string | undefined {
  if (typeof value !== 'string') return fail(`must be a URL (${protocols.join(' or ')})`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`'${value}' is not a URL`);
  }
  if (!protocols.includes(url.protocol)) return fail(`must use ${protocols.join(' or ')}, got ${url.protocol}`);
  // Problems name the part, never its value: queries and credentials often hold secrets.
  if (url.hash !== '' || url.href.includes('#')) return fail('must not have a fragment (#…)');
  if (!allow.query && (url.search !== '' || url.href.includes('?'))) return fail('must not have a query string (?…): requests add their own path and query to this base URL');
  if (!allow.credentials && (url.username !== '' || url.password !== '')) return fail('must not carry credentials (user:password@): the node is called without them');
  if (url.port === '0') return fail('port 0 is not a port to connect to');
  return url.href.replace(/\/+$/, '');
}

/** An address to listen on: an IP address or a DNS name (checked by syntax; resolving it is the listener's job). */
function hostProblem(host: string): string | undefined {
  if (isIP(host) !== 0) return undefined;
  const labels = host.replace(/\.$/, '').split('.');
  const wellFormed = host.length <= 253 && labels.every((l) => /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/.test(l));
  // An all-numeric last label is an IPv4 address that is not one (999.1.1.1), never a name.
  if (!wellFormed || /^[0-9]+$/.test(labels[labels.length - 1]!)) return `'${host}' is not an IP address or a host name`;
  return undefined;
}

/** Strings with a syntax of their own, checked where they are read (file, environment or flag). */
const STRING_RULES: ReadonlyMap<string, (value: string) => string | undefined> = new Map([
  ['host', hostProblem],
  ['peerPath', peerPathProblem],
]);

/** A path peers can dial: absolute, and exactly the pathname the upgrade handler compares it to. */
function peerPathProblem(path: string): string | undefined {
  let pathname: string | undefined;
  try {
    pathname = new URL(path, 'http://warpgate').pathname;
  } catch {
    pathname = undefined;
  }
  if (!path.startsWith('/') || path.startsWith('//') || pathname !== path) {
    return `'${path}' must be an absolute URL path such as /v1/peers (no query, fragment, spaces or dot segments)`;
  }
  return undefined;
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]!] = value;
}

function flatten(obj: Record<string, unknown>, prefix: string, out: Map<string, unknown>, problems: string[]): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    // Own keys only: `constructor` or `__proto__` in a file is an unknown key, not Object.prototype's.
    if (Object.hasOwn(SCHEMA, key)) out.set(key, v);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(SCHEMA).some((s) => s.startsWith(`${key}.`))) flatten(v as Record<string, unknown>, key, out, problems);
    else problems.push(`${key}: unknown key`);
  }
}

export interface LoadOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Values that win over everything (CLI flags such as --port). */
  overrides?: Partial<Record<keyof typeof SCHEMA, unknown>>;
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const problems: string[] = [];
  const values = new Map<string, unknown>(Object.entries(SCHEMA).map(([k, s]) => [k, structuredClone(s.default)]));

  const file = opts.file ?? env.WARPGATE_CONFIG;
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      const why = err instanceof SyntaxError ? `is not valid JSON (${err.message})` : `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
      throw new ConfigError([`config file ${file} ${why}`]);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError([`config file ${file} must hold a JSON object`]);
    const fromFile = new Map<string, unknown>();
    flatten(parsed as Record<string, unknown>, '', fromFile, problems);
    for (const [key, raw] of fromFile) {
      const v = checkValue(key, SCHEMA[key as keyof typeof SCHEMA], raw, 'file', problems);
      if (v !== undefined) values.set(key, v);
    }
  }
  for (const [key, spec] of Object.entries(SCHEMA)) {
    const raw = env[envName(key)];
    if (raw === undefined) continue;
    const v = checkValue(key, spec, raw, 'env', problems);
    if (v !== undefined) values.set(key, v);
  }
  for (const [key, raw] of Object.entries(opts.overrides ?? {})) {
    if (raw === undefined) continue;
    if (!Object.hasOwn(SCHEMA, key)) {
      problems.push(`${key}: unknown key`);
      continue;
    }
    const v = checkValue(key, SCHEMA[key as keyof typeof SCHEMA], raw, 'file', problems);
    if (v !== undefined) values.set(key, v);
  }
  const agg = { deadline: values.get('aggregation.deadlineMs') as number, request: values.get('aggregation.requestTimeoutMs') as number };
  if (agg.request > agg.deadline) problems.push('aggregation.requestTimeoutMs: must not exceed aggregation.deadlineMs');
  // Node's HTTP server would never apply a headers timeout longer than the whole-request one.
  if ((values.get('limits.headersTimeoutMs') as number) > (values.get('limits.requestTimeoutMs') as number)) {
    problems.push('limits.headersTimeoutMs: must not exceed limits.requestTimeoutMs');
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const config: Record<string, unknown> = {};
  for (const [key, value] of values) setPath(config, key, value);
  return config as unknown as Config;
}

/**
 * The config with secrets replaced, for logs and the startup line: the API key, and any
 * credentials or query string in a URL (node providers often put their key there).
 */
export function redactConfig(config: Config): Config {
  const u = config.upstreams;
  return {
    ...config,
    upstreams: {
      node: redactUrl(u.node),
      dataApi: redactUrl(u.dataApi),
      metricsApi: redactUrl(u.metricsApi),
      apiKey: u.apiKey ? '[redacted]' : null,
    },
    peers: config.peers.map((p) => ({ url: redactUrl(p.url)! })),
  };
}

function redactUrl<T extends string | null>(value: T): T {
  if (value === null) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return '[redacted]' as T;
  }
  if (!url.username && !url.password && !url.search) return value;
  if (url.username) url.username = 'redacted';
  if (url.password) url.password = 'redacted';
  if (url.search) url.search = '?redacted';
  return url.toString().replace(/\/+$/, '') as T;
}
