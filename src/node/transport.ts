// JSON-RPC 2.0 over HTTP to one avalanchego node: the single transport under every node call we
// make (P-Chain /ext/bc/P, info /ext/info, a chain's EVM /ext/bc/{id}/rpc).
//
// - Connections: global fetch, whose undici agent keeps connections alive, so repeated calls
//   reuse one socket.
// - Every attempt has a deadline (AbortSignal.timeout) covering the request and the body.
// - Transport failures (refused, reset, timeout) are retried with jittered exponential backoff;
//   a JSON-RPC error answer never is: the node has spoken and would say the same again.
// - A caller's AbortSignal (its own deadline) ends the attempt under way, the backoff and any
//   further retry at once; the call then rejects with the signal's reason, not a NodeError.
// - The body is read with a byte cap, so a broken or hostile node cannot exhaust memory, and
//   parsed losslessly (json.ts): integers beyond 2^53 arrive as exact decimal strings.
// - The node's URL is in no error message: those reach clients (NodeError.url keeps it).
import { sleep } from '../util/abortable.js';
import { isRecord } from '../util/is-record.js';
import { readBodyCapped } from '../util/read-body.js';
import { NodeError, type NodeErrorKind } from './errors.js';
import { parseJsonLossless } from './json.js';
import { parseNodeUrl } from './url.js';

export interface NodeClientOptions {
  /** The node's base URL, e.g. `http://127.0.0.1:9650`. */
  nodeBaseUrl: string;
  /** How messages name the node ("P-Chain node call … failed"). Default 'P-Chain node'. */
  label?: string;
  /** Deadline of one attempt (request and response body). Default 5000 ms. */
  timeoutMs?: number;
  /** Extra attempts after a transport failure. Default 2. */
  retries?: number;
  /** First backoff ceiling; doubles per retry up to backoffMaxMs. Default 100 ms. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Largest response body accepted. Default 32 MiB (mainnet's full validator list is ~2 MiB). */
  maxResponseBytes?: number;
  /** Told once per call, after any retries (for metrics). Exceptions it throws are ignored. */
  observe?: (event: NodeCallEvent) => void;
}

export interface NodeCallEvent {
  method: string;
  /** Wall time of the whole call, retries and backoff included. */
  ms: number;
  attempts: number;
  /** Set when the call failed; 'aborted' when the caller stopped waiting (its deadline). */
  error?: NodeErrorKind | 'aborted';
}

export interface CallOptions {
  /** The caller's deadline: aborting it ends the call at once (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_RETRIES = 2;
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** An attempt's failure before it becomes a NodeError (which call() builds once, at the end). */
class AttemptFailure {
  constructor(
    readonly kind: NodeErrorKind,
    readonly detail: string,
    readonly cause?: unknown,
    readonly rpcCode?: number,
    readonly nodeMessage?: string,
  ) {}

  get retryable(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout';
  }
}

function transportDetail(err: unknown): string {
  // undici reports `TypeError: fetch failed` with the socket error (ECONNREFUSED, ...) as cause.
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}

export class JsonRpcTransport {
  /** The node's base URL, normalized (no trailing slash). */
  readonly baseUrl: string;
  private readonly label: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly maxResponseBytes: number;
  private readonly observe: ((event: NodeCallEvent) => void) | undefined;
  private nextId = 1;

  constructor(options: NodeClientOptions) {
    this.label = options.label ?? 'P-Chain node';
    this.baseUrl = parseNodeUrl(options.nodeBaseUrl, `${this.label} URL`);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.backoffBaseMs = options.backoffBaseMs ?? 100;
    this.backoffMaxMs = options.backoffMaxMs ?? 2000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.observe = options.observe;
  }

  /** The failure of `method` at `path`, as every caller reports one. */
  private error(path: string, method: string, kind: NodeErrorKind, detail: string, extra: { rpcCode?: number; nodeMessage?: string; cause?: unknown } = {}): NodeError {
    return new NodeError(method, kind, detail, { ...extra, url: this.baseUrl + path, label: this.label });
  }

  /**
   * One JSON-RPC call to `path` (e.g. `/ext/bc/P`); resolves with `result`, rejects with a
   * NodeError, or with the reason of `opts.signal` once it aborts.
   */
  async call(path: string, method: string, params: unknown, opts: CallOptions = {}): Promise<unknown> {
    const started = performance.now();
    const { signal } = opts;
    const report = (attempts: number, error?: NodeCallEvent['error']): void => {
      try {
        this.observe?.({ method, ms: performance.now() - started, attempts, ...(error ? { error } : {}) });
      } catch {
        // Metrics must never break a node call.
      }
    };
    for (let attempt = 1; ; attempt++) {
      let outcome: { result: unknown } | AttemptFailure;
      try {
        signal?.throwIfAborted();
        outcome = await this.attempt(path, method, params, signal);
      } catch (err) {
        if (signal?.aborted) report(attempt, 'aborted');
        throw err;
      }
      if (!(outcome instanceof AttemptFailure)) {
        report(attempt);
        return outcome.result;
      }
      if (!outcome.retryable || attempt > this.retries) {
        report(attempt, outcome.kind);
        const detail = outcome.retryable && attempt > 1 ? `${outcome.detail} (${attempt} attempts)` : outcome.detail;
        throw this.error(path, method, outcome.kind, detail, { rpcCode: outcome.rpcCode, nodeMessage: outcome.nodeMessage, cause: outcome.cause });
      }
      try {
        await sleep(this.backoffDelay(attempt), signal);
      } catch (err) {
        report(attempt, 'aborted');
        throw err;
      }
    }
  }

  /** Reads `result` through a parser; a parser error becomes a 'bad-response' NodeError. */
  async typed<T>(path: string, method: string, params: unknown, read: (result: unknown) => T, opts: CallOptions = {}): Promise<T> {
    const result = await this.call(path, method, params, opts);
    try {
      return read(result);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw this.error(path, method, 'bad-response', `unexpected result: ${detail}`, { cause: err });
    }
  }

  /** Full jitter: uniform in [0, min(max, base * 2^(attempt-1))], so retrying clients spread out. */
  private backoffDelay(attempt: number): number {
    const ceiling = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (attempt - 1));
    return Math.random() * ceiling;
  }

  /** One attempt; a failure is returned, except the caller's abort, which is thrown (its reason). */
  private async attempt(path: string, method: string, params: unknown, callerSignal: AbortSignal | undefined): Promise<{ result: unknown } | AttemptFailure> {
    const id = this.nextId++;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([timeout, callerSignal]) : timeout;
    let status: number;
    let text: string;
    try {
      const res = await fetch(this.baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal,
      });
      status = res.status;
      const body = await readBodyCapped(res, this.maxResponseBytes);
      if (body === null) return new AttemptFailure('bad-response', `response body larger than ${this.maxResponseBytes} bytes`);
      text = body;
    } catch (err) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timeout.aborted) return new AttemptFailure('timeout', `timeout after ${this.timeoutMs} ms`, err);
      return new AttemptFailure('unreachable', `node unreachable: ${transportDetail(err)}`, err);
    }
    return readEnvelope(text, status, id);
  }
}

/** The JSON-RPC answer in `text`: its result, or why it is not one. */
function readEnvelope(text: string, status: number, id: number): { result: unknown } | AttemptFailure {
  let envelope: unknown;
  try {
    envelope = parseJsonLossless(text);
  } catch (err) {
    const what = status === 200 ? 'response is not JSON' : `HTTP ${status} with a body that is not JSON`;
    return new AttemptFailure('bad-response', `${what}: ${JSON.stringify(text.slice(0, 120))}`, err);
  }
  if (!isRecord(envelope)) return new AttemptFailure('bad-response', `HTTP ${status}: response is not a JSON-RPC object`);
  if (envelope.error !== undefined && envelope.error !== null) {
    const e = isRecord(envelope.error) ? envelope.error : {};
    const code = typeof e.code === 'number' ? e.code : undefined;
    const message = typeof e.message === 'string' ? e.message : JSON.stringify(envelope.error);
    return new AttemptFailure('rpc', `node answered error ${code ?? '(no code)'}: ${message}`, undefined, code, message);
  }
  if (status !== 200) return new AttemptFailure('bad-response', `HTTP ${status} from the node`);
  if (!('result' in envelope)) return new AttemptFailure('bad-response', 'response has neither result nor error');
  if (envelope.id !== undefined && envelope.id !== id) {
    return new AttemptFailure('bad-response', `response id ${JSON.stringify(envelope.id)} does not match request id ${id}`);
  }
  return { result: envelope.result };
}
