// JSON-RPC 2.0 over HTTP exactly as avalanchego serves it: gorilla/rpc v2 with the json2 codec,
// wrapped by avalanchego's utils/json codec (protocol.md section 8). Clients are written against
// those quirks, so the simulated node reproduces them rather than "correct" JSON-RPC:
// - every JSON-RPC error is HTTP 200: -32700 for unparseable JSON, -32600 for a bad envelope,
//   -32000 for everything else (unknown service or method, bad params, handler failures);
// - bad params always answer one fixed message, whatever was wrong with them;
// - `params` may be omitted, null, an object, or an array whose first element is the object;
//   object keys match field names case-insensitively (Go's encoding/json);
// - a request without an id (a notification) gets an empty 200 answer;
// - non-POST is 405 and a missing or foreign Content-Type 415, both as plain text.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJsonLossless } from '../node/json.js';
import { isRecord } from '../util/is-record.js';
import { BodyCap } from '../util/read-body.js';
import { cb58Decode, parseNodeId } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';

export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;
export const JSON_RPC_SERVER_ERROR = -32000;

/** avalanchego's errInvalidArg: the only thing a caller learns about params that do not decode. */
export const INVALID_ARGUMENT_MESSAGE =
  "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";

/** Request bodies above this are refused before parsing; no P-Chain call needs more. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

const MAX_UINT64 = (1n << 64n) - 1n;

/** A failure a handler reports to the caller as a JSON-RPC error object (HTTP 200). */
export class JsonRpcError extends Error {
  override readonly name: string = 'JsonRpcError';
  constructor(
    message: string,
    readonly code: number = JSON_RPC_SERVER_ERROR,
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

/**
 * Params that do not decode into the method's arguments. The caller sees only
 * INVALID_ARGUMENT_MESSAGE, as from avalanchego; `detail` says what was wrong, for our logs and
 * tests.
 */
export class InvalidArgumentError extends JsonRpcError {
  override readonly name = 'InvalidArgumentError';
  constructor(readonly detail: string) {
    super(INVALID_ARGUMENT_MESSAGE);
  }
}

/**
 * JSON text of `value`, where a bigint is written as a JSON number with all its digits (Go writes
 * plain uint64 fields that way, beyond 2^53), `undefined` object fields are left out, and
 * Uint8Array is not special (callers convert bytes themselves, as each field has its own format).
 */
export function stringifyJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push('null');
  } else if (typeof value === 'bigint') {
    out.push(value.toString());
  } else if (typeof value === 'string' || typeof value === 'boolean') {
    out.push(JSON.stringify(value));
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`stringifyJson: ${value} has no JSON form`);
    out.push(JSON.stringify(value));
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, i) => {
      if (i > 0) out.push(',');
      write(item, out);
    });
    out.push(']');
  } else if (value instanceof Uint8Array) {
    throw new TypeError('stringifyJson: encode bytes explicitly (hex, cb58 or a number array)');
  } else if (typeof value === 'object') {
    out.push('{');
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(item, out);
    }
    out.push('}');
  } else {
    throw new TypeError(`stringifyJson: ${typeof value} has no JSON form`);
  }
}

/** The `height` of getValidatorsAt and friends: a number, or the proposer VM's height. */
export type HeightArg = bigint | 'proposed';

/**
 * A method's decoded params with typed readers that follow Go's encoding/json and avalanchego's
 * JSON types (ids.ID, ids.NodeID, json.Uint64, platformapi.Height, formatting.Encoding). Every
 * reader throws InvalidArgumentError on a value Go would refuse; an absent or null field is the
 * Go zero value, reported here as undefined.
 */
export class JsonRpcArgs {
  private constructor(readonly raw: Record<string, unknown>) {}

  /** Applies json2's params rules: absent/null → {}, object, or `[object]` (first element). */
  static fromParams(params: unknown): JsonRpcArgs {
    if (params === undefined || params === null) return new JsonRpcArgs({});
    if (isRecord(params)) return new JsonRpcArgs(params);
    if (Array.isArray(params)) {
      // json2 retries as a one-element Go array: extra elements are dropped, none means zero args.
      const first: unknown = params[0];
      if (first === undefined || first === null) return new JsonRpcArgs({});
      if (isRecord(first)) return new JsonRpcArgs(first);
      throw new InvalidArgumentError(`params[0] must be an object, got ${describe(first)}`);
    }
    throw new InvalidArgumentError(`params must be an object or [object], got ${describe(params)}`);
  }

  /** The field's value, matching the name case-insensitively as Go does (the last match wins). */
  get(field: string): unknown {
    const folded = field.toLowerCase();
    let found: unknown;
    for (const [key, value] of Object.entries(this.raw)) {
      if (key.toLowerCase() === folded) found = value;
    }
    return found;
  }

  /** A Go `string` field. */
  string(field: string): string | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new InvalidArgumentError(`${field} must be a string, got ${describe(value)}`);
    return value;
  }

  /** An ids.ID: cb58 of 32 bytes. */
  id(field: string): Uint8Array | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new InvalidArgumentError(`${field} must be a cb58 ID string, got ${describe(value)}`);
    return decodeId(value, field);
  }

  /** An []ids.NodeID: `NodeID-…` strings. */
  nodeIds(field: string): Uint8Array[] | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) throw new InvalidArgumentError(`${field} must be an array of NodeIDs`);
    return value.map((item: unknown, i) => {
      if (typeof item !== 'string') throw new InvalidArgumentError(`${field}[${i}] must be a NodeID string`);
      try {
        return parseNodeId(item, `${field}[${i}]`);
      } catch (err) {
        throw new InvalidArgumentError(err instanceof WarpFormatError ? err.message : `${field}[${i}] is not a NodeID`);
      }
    });
  }

  /** A json.Uint64: a decimal string or a JSON number, up to 2^64-1. */
  uint64(field: string): bigint | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    return parseUint64(value, field);
  }

  /** A platformapi.Height: a uint64 (not 2^64-1, which is reserved) or "proposed"; null is 0. */
  height(field: string): HeightArg | undefined {
    const value = this.get(field);
    if (value === undefined) return undefined;
    if (value === null) return 0n;
    if (value === 'proposed') return 'proposed';
    const height = parseUint64(value, field);
    if (height === MAX_UINT64) throw new InvalidArgumentError(`${field} 2^64-1 is reserved for "proposed"`);
    return height;
  }

  /** A formatting.Encoding: hex (the Go zero value), hexc, hexnc or json, in any case. */
  encoding(field: string): 'hex' | 'hexc' | 'hexnc' | 'json' {
    const value = this.get(field);
    if (value === undefined || value === null) return 'hex';
    if (typeof value === 'string') {
      const lower = value.toLowerCase();
      if (lower === 'hex' || lower === 'hexc' || lower === 'hexnc' || lower === 'json') return lower;
    }
    throw new InvalidArgumentError(`${field} must be "hex", "hexc", "hexnc" or "json", got ${describe(value)}`);
  }

  /** A Go `[]string`. */
  strings(field: string): string[] | undefined {
    const value = this.get(field);
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
      throw new InvalidArgumentError(`${field} must be an array of strings`);
    }
    return value;
  }
}

function decodeId(text: string, field: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = cb58Decode(text, field);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof WarpFormatError ? err.message : `${field} is not cb58`);
  }
  if (bytes.length !== 32) throw new InvalidArgumentError(`${field} must be 32 bytes, got ${bytes.length}`);
  return bytes;
}

/** json.Uint64's parser: optional surrounding quotes, then decimal digits only. */
export function parseUint64(value: unknown, field: string): bigint {
  let text: string | undefined;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) text = String(value);
  else if (typeof value === 'bigint') text = value.toString();
  if (text === undefined || !/^\d{1,20}$/.test(text)) {
    throw new InvalidArgumentError(`${field} must be a uint64 (a decimal string or number), got ${describe(value)}`);
  }
  const parsed = BigInt(text);
  if (parsed > MAX_UINT64) throw new InvalidArgumentError(`${field} ${text} exceeds 2^64-1`);
  return parsed;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value;
}

/** One JSON-RPC method: decoded params in, result out (or a thrown JsonRpcError). */
export type JsonRpcMethod = (args: JsonRpcArgs) => unknown;

/** A gorilla "service": the part of the method name before the dot, e.g. `platform`. */
export interface JsonRpcService {
  readonly name: string;
  /** Keyed by the name clients use, first letter lower-case (`getHeight`). */
  readonly methods: Readonly<Record<string, JsonRpcMethod>>;
}

/** What happens to one call, for the caller's hooks (logging, fault injection). */
export interface JsonRpcHooks {
  /** Told about every request whose envelope parsed, before the method runs. */
  onCall?(method: string, params: unknown): void;
  /** When it returns an error, that error answers the call instead of the method. */
  override?(method: string): JsonRpcError | undefined;
}

/** What to write back: a status, content type and body. */
export interface HttpAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Sends an HttpAnswer; json2 also sets nosniff on every RPC answer. */
export function sendAnswer(res: ServerResponse, answer: HttpAnswer): void {
  res.statusCode = answer.status;
  if (answer.body.length > 0) res.setHeader('Content-Type', answer.contentType);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(answer.body);
}

function plainText(status: number, body: string): HttpAnswer {
  return { status, contentType: 'text/plain; charset=utf-8', body };
}

/** gorilla's content-type rule, with avalanchego's two registered codecs (so no default). */
export function checkRpcRequestHead(method: string | undefined, contentType: string | undefined): HttpAnswer | undefined {
  if (method !== 'POST') return plainText(405, `rpc: POST method required, received ${method ?? ''}`);
  const bare = (contentType ?? '').split(';')[0] ?? '';
  if (bare.toLowerCase() !== 'application/json') return plainText(415, `rpc: unrecognized Content-Type: ${bare}`);
  return undefined;
}

interface Envelope {
  jsonrpc: unknown;
  method: unknown;
  params: unknown;
  /** undefined when absent or null: the request is a notification and gets no answer body. */
  id: unknown;
}

function answerJson(envelope: Pick<Envelope, 'id'> | undefined, payload: { result?: unknown; error?: JsonRpcError }, force = false): HttpAnswer {
  const id = envelope?.id;
  if ((id === undefined || id === null) && !force) return { status: 200, contentType: 'application/json; charset=utf-8', body: '' };
  const response: Record<string, unknown> = { jsonrpc: '2.0' };
  if (payload.error) {
    response.error = { code: payload.error.code, message: payload.error.message, data: payload.error.data };
  } else {
    // json2 omits a null result (omitempty); every method here returns an object anyway.
    response.result = payload.result ?? undefined;
  }
  response.id = id ?? null;
  return { status: 200, contentType: 'application/json; charset=utf-8', body: `${stringifyJson(response)}\n` };
}

/**
 * Turns a raw request body into the HTTP answer, running the method from `services`. Never throws:
 * a method that throws something other than JsonRpcError answers -32000 with its message, as a
 * Go handler's returned error would.
 */
export async function answerJsonRpc(
  body: string,
  services: ReadonlyMap<string, JsonRpcService>,
  hooks: JsonRpcHooks = {},
): Promise<HttpAnswer> {
  let parsed: unknown;
  try {
    // Lossless, so that a uint64 param written as a JSON number above 2^53 keeps its value.
    parsed = parseJsonLossless(body);
  } catch (err) {
    const parseError = new JsonRpcError(err instanceof Error ? err.message : 'unparseable JSON', JSON_RPC_PARSE_ERROR, {
      jsonrpc: '',
      method: '',
      params: null,
      id: null,
    });
    return answerJson(undefined, { error: parseError }, true);
  }
  if (!isRecord(parsed)) {
    // Go cannot decode a non-object into the request struct: also a parse error.
    const parseError = new JsonRpcError('json: cannot unmarshal non-object into Go value of type json2.serverRequest', JSON_RPC_PARSE_ERROR, {
      jsonrpc: '',
      method: '',
      params: null,
      id: null,
    });
    return answerJson(undefined, { error: parseError }, true);
  }
  const envelope: Envelope = {
    jsonrpc: parsed.jsonrpc,
    method: parsed.method,
    params: parsed.params,
    id: parsed.id === null ? undefined : parsed.id,
  };
  for (const field of ['jsonrpc', 'method'] as const) {
    const value = envelope[field];
    if (typeof value !== 'string' && value !== undefined && value !== null) {
      // Go fails to decode the envelope itself: a parse error, not a bad request.
      const parseError = new JsonRpcError(
        `json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go struct field serverRequest.${field} of type string`,
        JSON_RPC_PARSE_ERROR,
        echo(envelope),
      );
      return answerJson(envelope, { error: parseError }, true);
    }
  }
  if (envelope.jsonrpc !== '2.0') {
    return answerJson(envelope, { error: new JsonRpcError('jsonrpc must be 2.0', JSON_RPC_INVALID_REQUEST, echo(envelope)) });
  }
  const requested = typeof envelope.method === 'string' ? envelope.method : '';

  const resolved = resolveMethod(requested, services);
  if (resolved instanceof JsonRpcError) return answerJson(envelope, { error: resolved });
  hooks.onCall?.(requested, envelope.params);
  const overridden = hooks.override?.(requested);
  if (overridden) return answerJson(envelope, { error: overridden });

  try {
    const args = JsonRpcArgs.fromParams(envelope.params);
    const result = await resolved(args);
    return answerJson(envelope, { result });
  } catch (err) {
    const error = err instanceof JsonRpcError ? err : new JsonRpcError(err instanceof Error ? err.message : String(err));
    return answerJson(envelope, { error });
  }
}

/** What json2 echoes as `data` for envelope errors: the request as it decoded it. */
function echo(envelope: Envelope): Record<string, unknown> {
  return {
    jsonrpc: typeof envelope.jsonrpc === 'string' ? envelope.jsonrpc : '',
    method: typeof envelope.method === 'string' ? envelope.method : '',
    params: envelope.params ?? null,
    id: envelope.id ?? null,
  };
}

/**
 * avalanchego upper-cases the first letter of the function (so `platform.getHeight` runs
 * GetHeight) and refuses names that already start upper-case; gorilla then reports unknown
 * names with the upper-cased form.
 */
function resolveMethod(requested: string, services: ReadonlyMap<string, JsonRpcService>): JsonRpcMethod | JsonRpcError {
  const dot = requested.indexOf('.');
  let goName = requested;
  if (dot !== -1) {
    const service = requested.slice(0, dot);
    const fn = requested.slice(dot + 1);
    const first = fn.codePointAt(0);
    if (first !== undefined) {
      const firstChar = String.fromCodePoint(first);
      if (firstChar !== firstChar.toLowerCase() && firstChar === firstChar.toUpperCase()) {
        return new JsonRpcError('method must start with a non-uppercase letter');
      }
      goName = `${service}.${firstChar.toUpperCase()}${fn.slice(firstChar.length)}`;
    }
  }
  const parts = goName.split('.');
  if (parts.length !== 2) return new JsonRpcError(`rpc: service/method request ill-formed: ${JSON.stringify(goName)}`);
  const [serviceName = '', fnName = ''] = parts;
  const service = services.get(serviceName);
  if (!service) return new JsonRpcError(`rpc: can't find service ${JSON.stringify(goName)}`);
  const clientName = fnName.length > 0 ? fnName[0]!.toLowerCase() + fnName.slice(1) : fnName;
  const method = Object.hasOwn(service.methods, clientName) ? service.methods[clientName] : undefined;
  if (!method) return new JsonRpcError(`rpc: can't find method ${JSON.stringify(goName)}`);
  return method;
}

/** Reads a request body up to `limit` bytes; resolves undefined when it is longer. */
export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    // The rest of an oversized body is read and dropped, so the 413 reaches the client.
    const body = new BodyCap(limit);
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (!body.add(chunk)) tooLarge = true;
    });
    req.on('end', () => resolve(tooLarge ? undefined : body.bytes().toString('utf8')));
    req.on('error', reject);
  });
}

/** Serves one HTTP request as a JSON-RPC endpoint over `services`. */
export async function serveJsonRpc(
  req: IncomingMessage,
  res: ServerResponse,
  services: ReadonlyMap<string, JsonRpcService>,
  hooks: JsonRpcHooks = {},
): Promise<void> {
  const refused = checkRpcRequestHead(req.method, req.headers['content-type']);
  if (refused) {
    req.resume();
    sendAnswer(res, refused);
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    sendAnswer(res, plainText(413, `request body exceeds ${MAX_REQUEST_BYTES} bytes`));
    return;
  }
  sendAnswer(res, await answerJsonRpc(body, services, hooks));
}

/** Builds the service map `answerJsonRpc` takes. */
export function serviceMap(...services: JsonRpcService[]): Map<string, JsonRpcService> {
  return new Map(services.map((s) => [s.name, s]));
}
