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
import { parseJsonLossless } from '../../node/json.js';
import { BodyCap } from '../../util/read-body.js';
import { isRecord } from '../../util/is-record.js';
import { stringifyJson } from './go-json.js';
import { JsonRpcArgs } from './json-rpc-args.js';
import { JSON_RPC_INVALID_REQUEST, JSON_RPC_PARSE_ERROR, JsonRpcError } from './json-rpc-errors.js';

/** Request bodies above this are refused before parsing; no P-Chain call needs more. */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** One JSON-RPC method: decoded params in, result out (or a thrown JsonRpcError). */
type JsonRpcMethod = (args: JsonRpcArgs) => unknown;

/** A gorilla "service": the part of the method name before the dot, e.g. `platform`. */
export interface JsonRpcService {
  readonly name: string;
  /** Keyed by the name clients use, first letter lower-case (`getHeight`). */
  readonly methods: Readonly<Record<string, JsonRpcMethod>>;
}

/** What happens to one call, for the caller's hooks (logging, fault injection). */
interface JsonRpcHooks {
  /** Told about every request whose envelope parsed, before the method runs. */
  onCall?(method: string, params: unknown): void;
  /** When it returns an error, that error answers the call instead of the method. */
  override?(method: string): JsonRpcError | undefined;
}

/** What to write back: a status, content type and body. */
interface HttpAnswer {
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
function checkRpcRequestHead(method: string | undefined, contentType: string | undefined): HttpAnswer | undefined {
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
async function answerJsonRpc(
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
function readBody(req: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<string | undefined> {
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
