// Loads and validates the configuration: defaults, then the file (--config or WARPGATE_CONFIG),
// then WARPGATE_* environment variables, then overrides (CLI flags, the devnet). Each value is
// checked against its key's schema where it is read, so a problem names its source; every
// problem is collected, so an operator fixes them all in one go; the CLI prints one line per
// problem and exits 2.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CONFIG_SCHEMA, SCHEMA, envName, type Config, type ConfigKey } from './schema.js';

export type { Config } from './schema.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** `[0].url` for the path [0, 'url'] inside a key's value. */
function pathSuffix(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/**
 * One problem line per place in the value (`where`, then the path inside it): the first issue
 * there, which is the one that matters (a value that is not a number is not also out of range).
 */
function problemLines(where: string, issues: readonly z.core.$ZodIssue[]): string[] {
  const first = new Map<string, string>();
  for (const issue of issues) {
    const at = where === '' ? pathSuffix(issue.path).replace(/^\./, '') : `${where}${pathSuffix(issue.path)}`;
    if (!first.has(at)) first.set(at, `${at}: ${issue.message}`);
  }
  return [...first.values()];
}

/** Checks one key's value; its output (URLs normalized, keys lower-cased), or undefined after noting the problems. */
function checkValue(key: ConfigKey, raw: unknown, source: 'file' | 'env', problems: string[]): { value: unknown } | undefined {
  const setting = SCHEMA[key];
  const result = source === 'env' && typeof raw === 'string' ? z.safeParse(setting.fromEnv, raw) : z.safeParse(setting.schema, raw);
  if (result.success) return { value: result.data };
  problems.push(...problemLines(source === 'env' ? `${envName(key)} (${key})` : key, result.error.issues));
  return undefined;
}

function isConfigKey(key: string): key is ConfigKey {
  // Own keys only: `constructor` or `__proto__` is an unknown key, not Object.prototype's.
  return Object.hasOwn(SCHEMA, key);
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]!] = value;
}

function flatten(obj: Record<string, unknown>, prefix: string, out: Map<ConfigKey, unknown>, problems: string[]): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isConfigKey(key)) out.set(key, v);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(SCHEMA).some((s) => s.startsWith(`${key}.`))) flatten(v as Record<string, unknown>, key, out, problems);
    else problems.push(`${key}: unknown key`);
  }
}

function readConfigFile(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = err instanceof SyntaxError ? `is not valid JSON (${err.message})` : `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
    throw new ConfigError([`config file ${file} ${why}`]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError([`config file ${file} must hold a JSON object`]);
  return parsed as Record<string, unknown>;
}

interface LoadOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Values that win over everything (CLI flags such as --port). */
  overrides?: Partial<Record<ConfigKey, unknown>>;
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const problems: string[] = [];
  const keys = Object.keys(SCHEMA).filter(isConfigKey);
  const values = new Map<ConfigKey, unknown>(keys.map((k) => [k, structuredClone(SCHEMA[k].default)]));
  /** Top-level sections (`relayer`, `aggregation`, …) with a value that failed its check. */
  const failedSections = new Set<string>();
  const take = (key: ConfigKey, raw: unknown, source: 'file' | 'env'): void => {
    const checked = checkValue(key, raw, source, problems);
    if (checked) values.set(key, checked.value);
    else failedSections.add(key.split('.')[0]!);
  };

  const file = opts.file ?? env.WARPGATE_CONFIG;
  if (file) {
    const fromFile = new Map<ConfigKey, unknown>();
    flatten(readConfigFile(file), '', fromFile, problems);
    for (const [key, raw] of fromFile) take(key, raw, 'file');
  }
  for (const key of keys) {
    const raw = env[envName(key)];
    if (raw !== undefined) take(key, raw, 'env');
  }
  for (const [key, raw] of Object.entries(opts.overrides ?? {})) {
    if (raw === undefined) continue;
    if (isConfigKey(key)) take(key, raw, 'file');
    else problems.push(`${key}: unknown key`);
  }

  // Every value is valid by now (a bad one kept its earlier value): what can still fail are the
  // rules between keys.
  const nested: Record<string, unknown> = {};
  for (const [key, value] of values) setPath(nested, key, value);
  const config = CONFIG_SCHEMA.safeParse(nested);
  // A rule between keys of a section where a value failed would judge the default standing in
  // for it (a route "naming a chain not listed" because the chains were refused): only the
  // failed value is reported; its section's rules are checked once it is fixed.
  if (!config.success) problems.push(...problemLines('', config.error.issues.filter((i) => !failedSections.has(String(i.path[0])))));
  if (!config.success || problems.length > 0) throw new ConfigError(problems);
  return config.data;
}

/**
 * The config with secrets replaced, for logs and the startup line: the API key, the manual relay
 * token, and any credentials or query string in a URL (node providers often put their key there).
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
    redis: { ...config.redis, url: redactUrl(config.redis.url) },
    // The keys are only where they are (a file, a variable); URLs may carry a provider's key.
    relayer: {
      ...config.relayer,
      chains: config.relayer.chains.map((c) => ({ ...c, rpcUrl: redactUrl(c.rpcUrl), ...(c.wsUrl === undefined ? {} : { wsUrl: redactUrl(c.wsUrl) }) })),
      manualRelayToken: config.relayer.manualRelayToken ? '[redacted]' : null,
    },
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
