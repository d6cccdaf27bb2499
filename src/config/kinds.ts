// The kinds of value a configuration key holds, as zod schemas whose problems read as the
// operator-facing sentences the loader prints (`config: <key>: <why>`). Each kind also says how
// the configuration table (docs/configuration.md) names it and how a WARPGATE_* environment
// string is read as the JSON value it would be in the file.
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseHostPort } from '../util/host-port.js';
import { parseNodeId } from '../warp/cb58.js';
import { cb58IdProblem } from './cb58-check.js';

/** A value kind: its schema, its name in the configuration table's type column, and its environment reading. */
export interface Kind<S extends z.ZodType> {
  schema: S;
  type: string;
  /** The WARPGATE_* string as the value it stands for, checked as a file value would be. */
  fromEnv: z.ZodType<z.output<S>, string>;
}

export const problem = (message: string, input: unknown): z.core.$ZodRawIssue => ({ code: 'custom', message, input });

/** Environment strings read into JSON values by `coerce`, then checked by `schema`. */
export function kind<S extends z.ZodType>(schema: S, type: string, coerce: (raw: string) => unknown): Kind<S> {
  return { schema, type, fromEnv: z.string().transform(coerce).pipe(schema) };
}

const envInt = (raw: string): unknown => (/^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw);
const envList = (raw: string): unknown => (raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim()));
/** An empty variable clears an optional value (set by the file, say). */
const envOptional = (raw: string): unknown => (raw === '' ? null : raw);
const asIs = (raw: string): unknown => raw;

function integer(min: number, max: number, orNull: '' | ' or null') {
  const range = (iss: { input?: unknown }): string => `must be from ${min} to ${max}, got ${String(iss.input)}`;
  return z
    .int({ error: (iss) => `must be an integer${orNull}, got ${JSON.stringify(iss.input)}` })
    .min(min, { error: range })
    .max(max, { error: range });
}

export function int(min: number, max: number) {
  return kind(integer(min, max, ''), `integer ${min}–${max}`, envInt);
}

export function optionalInt(min: number, max: number) {
  return kind(integer(min, max, ' or null').nullable(), `integer ${min}–${max} or null`, (raw) => (raw === '' ? null : envInt(raw)));
}

export function bool() {
  return kind(
    z.boolean({ error: (iss) => `must be true or false, got ${JSON.stringify(iss.input)}` }),
    'boolean',
    (raw) => (raw === 'true' ? true : raw === 'false' ? false : raw),
  );
}

function nonEmptyString(why = 'must be a non-empty string') {
  return z.string({ error: why }).min(1, { error: why, abort: true });
}

/** A non-empty string with a syntax of its own: `rule` says why a value is not one, or undefined. */
export function string(rule?: (value: string) => string | undefined) {
  const schema = nonEmptyString().check((ctx) => {
    const why = rule?.(ctx.value);
    if (why !== undefined) ctx.issues.push(problem(why, ctx.value));
  });
  return kind(schema, 'string', asIs);
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const schema = nonEmptyString().pipe(z.enum(values, { error: (iss) => `must be one of ${values.join(', ')}, got '${String(iss.input)}'` }));
  return kind(schema, values.map((v) => `\`${v}\``).join(' \\| '), asIs);
}

export function optionalSecret() {
  return kind(nonEmptyString('must be a non-empty string or null').nullable(), 'secret string or null', envOptional);
}

/** A file path (read when the service starts), or null. */
export function optionalPath() {
  return kind(nonEmptyString('must be a file path or null').nullable(), 'file path or null', envOptional);
}

interface UrlRules {
  protocols: readonly string[];
  /** Upstream base URLs carry no query: requests append their own path and query. */
  query: boolean;
  /** Whether the URL's client can send credentials (user:password@). */
  credentials: boolean;
}

/**
 * A URL the service can use as given, kept in its normalized form (what every client of it then
 * sees) without a trailing slash. A fragment is never sent, so it is always a mistake.
 */
export function url(rules: UrlRules) {
  const { protocols } = rules;
  return z.string({ error: `must be a URL (${protocols.join(' or ')})` }).transform((value, ctx) => {
    const fail = (why: string): never => {
      ctx.issues.push(problem(why, value));
      return z.NEVER;
    };
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      return fail(`'${value}' is not a URL`);
    }
    if (!protocols.includes(parsed.protocol)) return fail(`must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
    // Problems name the part, never its value: queries and credentials often hold secrets.
    if (parsed.hash !== '' || parsed.href.includes('#')) return fail('must not have a fragment (#…)');
    if (!rules.query && (parsed.search !== '' || parsed.href.includes('?'))) {
      return fail('must not have a query string (?…): requests add their own path and query to this base URL');
    }
    if (!rules.credentials && (parsed.username !== '' || parsed.password !== '')) {
      return fail('must not carry credentials (user:password@): the node is called without them');
    }
    if (parsed.port === '0') return fail('port 0 is not a port to connect to');
    return parsed.href.replace(/\/+$/, '');
  });
}

/** An upstream base URL (http or https), or null; `credentials: false` where its client cannot send them. */
export function optionalUrl({ credentials = true }: { credentials?: boolean } = {}) {
  const protocols = ['http:', 'https:'];
  return kind(url({ protocols, query: false, credentials }).nullable(), 'URL (http, https) or null', envOptional);
}

/**
 * A Redis URL (redis:// or rediss:// for TLS), or null: `redis://[[user]:password@]host[:port][/db]`.
 * Credentials are allowed (Redis AUTH); a query or fragment is refused (ioredis would ignore them).
 */
export function optionalRedisUrl() {
  const schema = z
    .string({ error: 'must be a URL (redis: or rediss:) or null' })
    .check((ctx) => {
      const why = redisUrlProblem(ctx.value);
      if (why !== undefined) ctx.issues.push(problem(why, ctx.value));
    })
    .nullable();
  return kind(schema, 'URL (redis, rediss) or null', envOptional);
}

function redisUrlProblem(value: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    // Never echo the value: it may hold a password.
    return 'is not a URL (redis://[user:password@]host[:port][/db])';
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return `must use redis: or rediss: (TLS), got ${parsed.protocol}`;
  if (parsed.hostname === '') return 'must name a host (redis://host:6379)';
  if (parsed.port === '0') return 'port 0 is not a port to connect to';
  if (parsed.search !== '' || parsed.hash !== '' || value.includes('?') || value.includes('#')) return 'must not have a query string or fragment';
  if (!/^\/?(\d{1,2})?$/.test(parsed.pathname)) return 'the path is the database number (/0 to /15), nothing else';
  return undefined;
}

/** Addresses or CIDR ranges (or loopback, linklocal, uniquelocal) of proxies whose X-Forwarded-For is believed. */
export function proxyList() {
  const names = new Set(['loopback', 'linklocal', 'uniquelocal']);
  const schema = z.custom<string[]>(isStringList, { error: 'must be a list of addresses or CIDR ranges' }).check((ctx) => {
    const bad = ctx.value.find((entry) => !names.has(entry) && !isAddressOrCidr(entry));
    if (bad !== undefined) ctx.issues.push(problem(`'${bad.slice(0, 100)}' is not an IP address, a CIDR range (10.0.0.0/8) or one of ${[...names].join(', ')}`, ctx.value));
  });
  return kind(schema, 'list of addresses or CIDR ranges', envList);
}

function isAddressOrCidr(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

export function stringList() {
  const schema = z.custom<string[]>((v) => isStringList(v) && v.every((s) => s !== ''), { error: 'must be a list of non-empty strings' });
  return kind(schema, 'list of strings', envList);
}

export function idList() {
  const schema = z.custom<string[]>(isStringList, { error: 'must be a list of cb58 IDs' }).check((ctx) => {
    const bad = ctx.value.map((id) => cb58IdProblem(id)).filter((p) => p !== undefined);
    if (bad.length > 0) ctx.issues.push(problem(bad.join('; '), ctx.value));
  });
  return kind(schema, 'list of cb58 IDs', envList);
}

const BLS_PUBLIC_KEY_HEX = /^(0x)?[0-9a-fA-F]{96}$/;

/** BLS public keys as hex, kept lower-case without 0x. */
export function blsKeyList() {
  const schema = z
    .custom<string[]>(isStringList, { error: 'must be a list of BLS public keys (hex, 48 bytes)' })
    .check((ctx) => {
      const bad = ctx.value.find((v) => !BLS_PUBLIC_KEY_HEX.test(v));
      if (bad !== undefined) ctx.issues.push(problem(`'${bad.slice(0, 100)}' is not a BLS public key: 96 hex digits (48 bytes), 0x optional`, ctx.value));
    })
    .transform((keys) => keys.map((k) => k.replace(/^0x/i, '').toLowerCase()));
  return kind(schema, 'list of BLS public keys (hex)', envList);
}

/** Signer peers to dial: `[{"url": "ws://…"}]`; each problem names the entry, e.g. `peers[1].url`. */
export function peerList() {
  const peer = z.strictObject(
    // Dialed with ws, which takes a query and credentials as given.
    { url: url({ protocols: ['ws:', 'wss:'], query: true, credentials: true }) },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown key '${String(iss.keys[0])}'` : undefined) },
  );
  // An entry that is not an object is one without a url.
  const entry = z.preprocess((p) => (p !== null && typeof p === 'object' && !Array.isArray(p) ? p : {}), peer);
  const schema = z.array(entry, { error: 'must be a list of {"url": "ws://…"}' });
  return { schema, type: 'list of `{"url": "ws://…"}`', fromEnv: fromJsonEnv(schema, '[{"url":"ws://127.0.0.1:9700"}]') };
}

/** JSON from a WARPGATE_* variable, then checked by `schema` (lists of objects). */
export function fromJsonEnv<S extends z.ZodType>(schema: S, example: string) {
  return z
    .string()
    .transform((raw, ctx): unknown => {
      try {
        return JSON.parse(raw);
      } catch {
        ctx.issues.push(problem(`must be JSON, e.g. ${example}`, raw));
        return z.NEVER;
      }
    })
    .pipe(schema);
}

function nodeIdProblem(text: string): string | undefined {
  try {
    parseNodeId(text);
    return undefined;
  } catch (err) {
    return `'${text.slice(0, 100)}' is not a NodeID (${(err as Error).message})`;
  }
}

/**
 * avalanchego validators to connect to: `[{"nodeId": "NodeID-…", "address": "host:port"}]`.
 * The NodeID is checked against the certificate the address presents, so a wrong one never
 * reaches an impostor; a host name is allowed (resolved when dialled).
 */
export function p2pPeerList() {
  const entry = z.strictObject(
    {
      nodeId: z.string({ error: 'must be a NodeID string (NodeID-…)' }).check((ctx) => {
        const why = nodeIdProblem(ctx.value);
        if (why !== undefined) ctx.issues.push(problem(why, ctx.value));
      }),
      address: z.string({ error: 'must be a "host:port" string' }).check((ctx) => {
        const parsed = parseHostPort(ctx.value, { names: true });
        if (typeof parsed === 'string') ctx.issues.push(problem(parsed, ctx.value));
      }),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown key '${String(iss.keys[0])}'` : undefined) },
  );
  const item = z.preprocess((p) => (p !== null && typeof p === 'object' && !Array.isArray(p) ? p : {}), entry);
  const schema = z.array(item, { error: 'must be a list of {"nodeId": "NodeID-…", "address": "host:port"}' });
  return { schema, type: 'list of `{"nodeId": "NodeID-…", "address": "host:port"}`', fromEnv: fromJsonEnv(schema, '[{"nodeId":"NodeID-…","address":"203.0.113.7:9651"}]') };
}

/** avalanchego's client version syntax (version/parser.go as p2p/version.ts reads it): `avalanchego/1.15.0`, `v1.15.0` or `1.15.0`. */
export function clientVersionProblem(text: string): string | undefined {
  return /^(?:[A-Za-z0-9_.-]+\/)?v?\d{1,9}\.\d{1,9}\.\d{1,9}$/.test(text) ? undefined : `'${text}' is not a version like avalanchego/1.15.0`;
}

/**
 * Destination chains and where their ProposerVM is read: `[{"blockchainId": "<cb58>", "rpcUrl":
 * "http://host:9650/ext/bc/<id>"}]`, `rpcUrl` being the chain's base URL (the part before `/rpc`
 * or `/proposervm`). Each problem names the entry, e.g. `destinations[0].rpcUrl`.
 */
export function destinationList() {
  const chainBase = url({ protocols: ['http:', 'https:'], query: false, credentials: false }).check((ctx) => {
    if (/\/(rpc|ws|proposervm)$/.test(ctx.value)) {
      ctx.issues.push(problem(`must be the chain's base URL (…/ext/bc/{id}), not one of its endpoints: drop the trailing ${/\/[a-z]+$/.exec(ctx.value)![0]}`, ctx.value));
    }
  });
  const blockchainId = z.string({ error: 'must be a cb58 blockchain ID' }).check((ctx) => {
    const why = cb58IdProblem(ctx.value);
    if (why !== undefined) ctx.issues.push(problem(why, ctx.value));
  });
  const destination = z.strictObject(
    { blockchainId, rpcUrl: chainBase },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown key '${String(iss.keys[0])}'` : undefined) },
  );
  const entry = z.preprocess((d) => (d !== null && typeof d === 'object' && !Array.isArray(d) ? d : {}), destination);
  const schema = z.array(entry, { error: 'must be a list of {"blockchainId": "<cb58>", "rpcUrl": "http://…/ext/bc/<id>"}' }).check((ctx) => {
    const seen = new Set<string>();
    ctx.value.forEach((d, i) => {
      if (seen.has(d.blockchainId)) ctx.issues.push({ ...problem(`blockchainId ${d.blockchainId} is listed twice`, ctx.value), path: [i, 'blockchainId'] });
      seen.add(d.blockchainId);
    });
  });
  return { schema, type: 'list of `{"blockchainId": …, "rpcUrl": …}`', fromEnv: fromJsonEnv(schema, '[{"blockchainId":"…","rpcUrl":"http://127.0.0.1:9650/ext/bc/…"}]') };
}

/** An address to listen on: an IP address or a DNS name (checked by syntax; resolving it is the listener's job). */
export function hostProblem(host: string): string | undefined {
  if (isIP(host) !== 0) return undefined;
  const labels = host.replace(/\.$/, '').split('.');
  const wellFormed = host.length <= 253 && labels.every((l) => /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/.test(l));
  // An all-numeric last label is an IPv4 address that is not one (999.1.1.1), never a name.
  if (!wellFormed || /^[0-9]+$/.test(labels[labels.length - 1]!)) return `'${host}' is not an IP address or a host name`;
  return undefined;
}

/** A path peers can dial: absolute, and exactly the pathname the upgrade handler compares it to. */
export function urlPathProblem(path: string): string | undefined {
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
