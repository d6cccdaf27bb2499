// One call to an avalanchego JSON-RPC service (/ext/bc/P, /ext/info) for the signer's P-Chain
// checks: deadlined and size-capped (postJsonRpc), with every way it can fail told apart, because
// the policy treats "the node says there is no such thing" as an answer and everything else as
// "cannot check".
import { postJsonRpc } from './node-rpc.js';

/** A node call that did not produce a usable result. */
export class NodeQueryError extends Error {
  override readonly name = 'NodeQueryError';
  constructor(
    readonly method: string,
    /** `notFound`: the node said it has no such thing; `unreachable`: no answer came; `answer`: an answer we cannot use. */
    readonly kind: 'notFound' | 'unreachable' | 'answer',
    detail: string,
  ) {
    super(`${method}: ${detail}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

let nextId = 1;

/** Calls `method` at `url` and resolves with its result object. */
export async function avalancheCall(url: string, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
  let answer: { status: number; text: string };
  try {
    answer = await postJsonRpc(url, nextId++, method, params, timeoutMs);
  } catch (err) {
    throw new NodeQueryError(method, 'unreachable', `node unreachable at ${url}: ${(err as Error).message}`);
  }
  const { status, text } = answer;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new NodeQueryError(method, 'answer', `HTTP ${status} with an answer that is not JSON`);
  }
  if (!isRecord(body)) throw new NodeQueryError(method, 'answer', 'the answer is not a JSON-RPC object');
  if (body.error !== undefined && body.error !== null) {
    const message = isRecord(body.error) && typeof body.error.message === 'string' ? body.error.message : JSON.stringify(body.error);
    // avalanchego reports a missing subnet or validator as database.ErrNotFound ("not found").
    throw new NodeQueryError(method, /\bnot found\b/.test(message) ? 'notFound' : 'answer', `the node answered: ${message}`);
  }
  if (status !== 200) throw new NodeQueryError(method, 'answer', `HTTP ${status}`);
  if (!isRecord(body.result)) throw new NodeQueryError(method, 'answer', 'the answer has no result object');
  return body.result;
}
