// How the two kinds of node endpoint answer a call they cannot serve. avalanchego's own APIs
// (/ext/bc/X, /ext/bc/P, /ext/info, /ext/health, the validators API) use gorilla rpc's json2 codec
// behind avalanchego's method-name codec; EVM `/rpc` endpoints use geth's rpc package. A client of
// the gateway sees the same codes and messages the node itself would send.
import { gethRpcError, jsonRpcError, type JsonRpcErrorResponse, type JsonRpcId } from './error-shapes.js';
import type { MethodInfo, MethodTable } from './node-methods.js';

export interface RpcFailure {
  code: number;
  message: string;
}

type MethodResolution = { ok: true; info: MethodInfo } | { ok: false; failure: RpcFailure };

export interface RpcDialect {
  readonly name: 'avalanchego' | 'geth';
  /** A call without a response: avalanchego treats an absent or null id so, geth only an absent one. */
  isNotification(call: Record<string, unknown>): boolean;
  /** Problems with `jsonrpc`, `method` or `id`; null when the envelope is sound. */
  envelope(call: Record<string, unknown>): RpcFailure | null;
  notAnObject: RpcFailure;
  resolve(method: string, table: MethodTable): MethodResolution;
  params(params: unknown, info: MethodInfo): RpcFailure | null;
  errorResponse(id: JsonRpcId, failure: RpcFailure): JsonRpcErrorResponse;
  parseError(detail: string): RpcFailure;
  /** Used for gateway-side failures (unconfigured or failing upstream, refusals, rate limits). */
  serverErrorCode: number;
  rateLimitCode: number;
  /** HTTP answers before any JSON-RPC processing. */
  methodNotAllowed(method: string): string;
  /** null when the content type is accepted, else the text of the 415 answer. */
  contentTypeProblem(contentType: string | undefined): string | null;
}

/** The id to echo: a string or number as given, anything else null. */
export function echoId(call: unknown): JsonRpcId {
  if (call === null || typeof call !== 'object' || Array.isArray(call)) return null;
  const id = (call as Record<string, unknown>).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function validIdType(id: unknown): boolean {
  return id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
}

// Go's %q for the method names that reach these messages (printable text) matches JSON quoting.
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * avalanchego upper-cases the first letter after the dot before gorilla looks the method up
 * (utils/json/codec.go), so its messages name e.g. "platform.Foo" for "platform.foo", and a
 * method already starting upper-case is refused outright.
 */
function avalanchegoMethodName(method: string): { name: string } | { failure: RpcFailure } {
  const dot = method.indexOf('.');
  if (dot === -1) return { name: method };
  const service = method.slice(0, dot);
  const fn = method.slice(dot + 1);
  const firstCode = fn.codePointAt(0);
  if (firstCode === undefined) return { name: method };
  const first = String.fromCodePoint(firstCode);
  if (/\p{Lu}/u.test(first)) return { failure: { code: -32000, message: 'method must start with a non-uppercase letter' } };
  return { name: `${service}.${first.toUpperCase()}${fn.slice(first.length)}` };
}

const canonicalTables = new WeakMap<MethodTable, Map<string, MethodInfo>>();

function canonical(table: MethodTable): Map<string, MethodInfo> {
  let map = canonicalTables.get(table);
  if (!map) {
    map = new Map();
    for (const [method, info] of Object.entries(table)) {
      const n = avalanchegoMethodName(method);
      if ('name' in n) map.set(n.name, info);
    }
    canonicalTables.set(table, map);
  }
  return map;
}

const ARGUMENT_ERROR = 'couldn\'t unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls';

export const AVALANCHEGO: RpcDialect = {
  name: 'avalanchego',
  isNotification: (call) => call.id === undefined || call.id === null,
  envelope(call) {
    if (call.jsonrpc !== '2.0') return { code: -32600, message: 'jsonrpc must be 2.0' };
    if (call.method !== undefined && typeof call.method !== 'string') return { code: -32600, message: 'method must be a string' };
    if (!validIdType(call.id)) return { code: -32600, message: 'id must be a string, a number or null' };
    return null;
  },
  notAnObject: { code: -32600, message: 'a JSON-RPC request must be a JSON object' },
  resolve(method, table) {
    const n = avalanchegoMethodName(method);
    if ('failure' in n) return { ok: false, failure: n.failure };
    const parts = n.name.split('.');
    if (parts.length !== 2) return { ok: false, failure: { code: -32000, message: `rpc: service/method request ill-formed: ${goQuote(n.name)}` } };
    const methods = canonical(table);
    const service = `${parts[0]}.`;
    if (![...methods.keys()].some((m) => m.startsWith(service))) {
      return { ok: false, failure: { code: -32000, message: `rpc: can't find service ${goQuote(n.name)}` } };
    }
    const info = methods.get(n.name);
    if (!info) return { ok: false, failure: { code: -32000, message: `rpc: can't find method ${goQuote(n.name)}` } };
    return { ok: true, info };
  },
  // gorilla reads params as the argument struct, or as an array whose first element is that struct.
  params(params) {
    if (params === undefined || params === null) return null;
    if (Array.isArray(params)) {
      const first: unknown = params[0];
      if (first === undefined || first === null || (typeof first === 'object' && !Array.isArray(first))) return null;
      return { code: -32000, message: ARGUMENT_ERROR };
    }
    return typeof params === 'object' ? null : { code: -32000, message: ARGUMENT_ERROR };
  },
  errorResponse: (id, f) => jsonRpcError(id, f.code, f.message),
  parseError: (detail) => ({ code: -32700, message: detail }),
  serverErrorCode: -32000,
  rateLimitCode: -32000,
  methodNotAllowed: (method) => `rpc: POST method required, received ${method}`,
  contentTypeProblem(contentType) {
    const bare = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    return bare === 'application/json' ? null : `rpc: unrecognized Content-Type: ${bare}`;
  },
};

const GETH_CONTENT_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);

export const GETH: RpcDialect = {
  name: 'geth',
  isNotification: (call) => call.id === undefined,
  envelope(call) {
    const sound = call.jsonrpc === '2.0' && typeof call.method === 'string' && call.method !== '' && validIdType(call.id);
    return sound ? null : { code: -32600, message: 'invalid request' };
  },
  notAnObject: { code: -32600, message: 'invalid request' },
  resolve(method, table) {
    const info = Object.hasOwn(table, method) ? table[method] : undefined;
    if (!info) return { ok: false, failure: { code: -32601, message: `the method ${method} does not exist/is not available` } };
    return { ok: true, info };
  },
  params(params, info) {
    if (params === undefined || params === null) return null;
    if (!Array.isArray(params)) return { code: -32602, message: 'non-array args' };
    if (info.maxArgs !== undefined && params.length > info.maxArgs) {
      return { code: -32602, message: `too many arguments, want at most ${info.maxArgs}` };
    }
    return null;
  },
  errorResponse: (id, f) => gethRpcError(id, f.code, f.message),
  parseError: () => ({ code: -32700, message: 'parse error' }),
  serverErrorCode: -32000,
  rateLimitCode: -32005,
  methodNotAllowed: () => 'method not allowed',
  contentTypeProblem(contentType) {
    const bare = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    return GETH_CONTENT_TYPES.has(bare) ? null : 'invalid content type, only application/json is supported';
  },
};
