// A minimal client for a validator node's EVM warp API (`/ext/bc/{chainID}/rpc`, geth-style
// JSON-RPC; protocol.md section 7). Bounded: every call has a deadline and a response size cap.
import { readBodyCapped } from '../util/read-body.js';
import { idToString } from '../warp/cb58.js';

export const DEFAULT_NODE_TIMEOUT_MS = 3_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;

export class NodeRpcError extends Error {
  override readonly name = 'NodeRpcError';
  constructor(
    /** `transport`: no HTTP answer; `http`: non-2xx; `rpc`: a JSON-RPC error; `response`: an answer we cannot read. */
    readonly kind: 'transport' | 'http' | 'rpc' | 'response',
    readonly method: string,
    readonly url: string,
    detail: string,
  ) {
    super(`${method} at ${url}: ${detail}`);
  }
}

/** Checks and normalizes a node base URL such as `http://127.0.0.1:9650` (no trailing slash). */
export function parseNodeUrl(text: string, what = 'node URL'): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError(`${what} '${text}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError(`${what} '${text}' must be http:// or https://`);
  return text.replace(/\/+$/, '');
}

/**
 * POSTs one JSON-RPC request with a deadline and a response size cap, and returns the HTTP status
 * and the body text. Throws an Error whose message says why no answer came (timeout, refused
 * connection, oversized answer), for the caller to wrap in its own error type.
 */
export async function postJsonRpc(url: string, id: number, method: string, params: unknown, timeoutMs: number): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await readBodyCapped(res, MAX_RESPONSE_BYTES);
    if (text === null) throw new Error(`response exceeds ${MAX_RESPONSE_BYTES} bytes`);
    return { status: res.status, text };
  } catch (err) {
    const e = err as Error;
    throw new Error(e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : ((e.cause as Error | undefined)?.message ?? e.message));
  }
}

/** Calls `method` on the chain's RPC endpoint and returns the JSON-RPC `result`. */
export async function callChainRpc(
  nodeUrl: string,
  chainId: Uint8Array,
  method: string,
  params: unknown[],
  timeoutMs = DEFAULT_NODE_TIMEOUT_MS,
): Promise<unknown> {
  const url = `${nodeUrl}/ext/bc/${idToString(chainId)}/rpc`;
  let answer: { status: number; text: string };
  try {
    answer = await postJsonRpc(url, 1, method, params, timeoutMs);
  } catch (err) {
    throw new NodeRpcError('transport', method, url, (err as Error).message);
  }
  const { status, text } = answer;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    if (status < 200 || status >= 300) throw new NodeRpcError('http', method, url, `HTTP ${status}`);
    throw new NodeRpcError('response', method, url, 'the answer is not JSON');
  }
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as { result?: unknown; error?: { message?: unknown } };
  if (envelope.error !== undefined && envelope.error !== null) {
    const message = typeof envelope.error.message === 'string' ? envelope.error.message : JSON.stringify(envelope.error);
    throw new NodeRpcError('rpc', method, url, message);
  }
  if (status < 200 || status >= 300) throw new NodeRpcError('http', method, url, `HTTP ${status}`);
  if (!('result' in envelope)) throw new NodeRpcError('response', method, url, 'the answer has neither result nor error');
  return envelope.result;
}
