// A client of the node's P-Chain JSON-RPC API (POST {node}/ext/bc/P, protocol.md section 5).
//
// - Transport: global fetch, whose undici agent keeps connections alive by default, so repeated
//   calls reuse one socket.
// - Every attempt has a deadline (AbortSignal.timeout) covering the request and the body.
// - Transport failures (refused, reset, timeout) are retried with jittered exponential backoff;
//   a JSON-RPC error answer never is: the node has spoken and would say the same again.
// - A caller's AbortSignal (its own deadline) ends the attempt under way, the backoff and any
//   further retry at once; the call then rejects with the signal's reason.
// - The node's URL is in no error message: those reach clients, and a base URL may carry
//   credentials or name an internal host.
// - avalanchego's answers that mean "no such chain / subnet / height yet" become typed errors
//   (UnknownChainError, UnknownSubnetError, UnfinalizedHeightError): the client's mistake, not
//   the node's failure.
// - The body is read with a byte cap, so a broken or hostile node cannot exhaust memory.
// - Large integers: uint64 fields in these methods are decimal strings in avalanchego's output,
//   but some (getTx with encoding "json") are JSON numbers that can exceed 2^53. The body is
//   parsed with parseJsonLossless, which turns any integer a float64 cannot hold into a decimal
//   string, so callers see either an exact number or an exact string, never a rounded value.
import { readBodyCapped } from '../util/read-body.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { idToString, parseCb58Id, PRIMARY_NETWORK_ID } from '../warp/cb58.js';
import { bytesEqual, hexToBytes } from '../warp/hex.js';
import type { ValidatorEntry } from './canonical-set.js';
import { parseJsonLossless } from './lossless-json.js';
import { PChainError, UnfinalizedHeightError, UnknownChainError, UnknownSubnetError, type PChainErrorKind } from './errors.js';
import { sleep } from '../util/abortable.js';
import { parseCurrentValidatorsDetailed, parseValidatorsAtResult, parseWeight } from './pchain-results.js';

export interface PChainClientOptions {
  /** The node's base URL, e.g. `http://127.0.0.1:9650`; the P-Chain is at `/ext/bc/P`. */
  nodeBaseUrl: string;
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
  observe?: (event: PChainCallEvent) => void;
}

export interface PChainCallEvent {
  method: string;
  /** Wall time of the whole call, retries and backoff included. */
  ms: number;
  attempts: number;
  /** Set when the call failed; 'aborted' when the caller stopped waiting (its deadline). */
  error?: PChainErrorKind | 'aborted';
}

export interface CallOptions {
  /** The caller's deadline: aborting it ends the call at once (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

export type TxStatus = 'Committed' | 'Processing' | 'Dropped' | 'Unknown' | 'Aborted';
const TX_STATUSES: readonly string[] = ['Committed', 'Processing', 'Dropped', 'Unknown', 'Aborted'];

export interface SubnetInfo {
  isPermissioned: boolean;
  /** 32 zero bytes until the subnet is converted to an L1. */
  conversionId: Uint8Array;
  managerChainId: Uint8Array;
  /** Empty until the subnet is converted. */
  managerAddress: Uint8Array;
  /** The whole result, for the fields not modelled here (controlKeys, threshold, ...). */
  raw: Record<string, unknown>;
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** An attempt's failure before it becomes a PChainError (which call() builds once, at the end). */
class AttemptFailure {
  constructor(
    readonly kind: PChainErrorKind,
    readonly detail: string,
    readonly cause?: unknown,
    readonly rpcCode?: number,
    readonly nodeMessage?: string,
  ) {}

  get retryable(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function transportDetail(err: unknown): string {
  // undici reports `TypeError: fetch failed` with the socket error (ECONNREFUSED, ...) as cause.
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}

export class PChainClient {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly maxResponseBytes: number;
  private readonly observe: ((event: PChainCallEvent) => void) | undefined;
  private nextId = 1;

  constructor(options: PChainClientOptions) {
    let base: URL;
    try {
      base = new URL(options.nodeBaseUrl);
    } catch {
      throw new TypeError(`P-Chain node URL '${options.nodeBaseUrl}' is not a valid URL`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(`P-Chain node URL '${options.nodeBaseUrl}' must be http or https`);
    }
    this.url = `${base.origin}${base.pathname.replace(/\/+$/, '')}/ext/bc/P`;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.backoffBaseMs = options.backoffBaseMs ?? 100;
    this.backoffMaxMs = options.backoffMaxMs ?? 2000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.observe = options.observe;
  }

  /**
   * One JSON-RPC call; resolves with `result`, rejects with PChainError, or with the reason of
   * `opts.signal` once it aborts.
   */
  async call(method: string, params: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<unknown> {
    const started = performance.now();
    const { signal } = opts;
    for (let attempt = 1; ; attempt++) {
      let outcome: { result: unknown } | AttemptFailure;
      try {
        signal?.throwIfAborted();
        outcome = await this.attempt(method, params, signal);
      } catch (err) {
        if (signal?.aborted) this.report({ method, ms: performance.now() - started, attempts: attempt, error: 'aborted' });
        throw err;
      }
      if (!(outcome instanceof AttemptFailure)) {
        this.report({ method, ms: performance.now() - started, attempts: attempt });
        return outcome.result;
      }
      if (!outcome.retryable || attempt > this.retries) {
        this.report({ method, ms: performance.now() - started, attempts: attempt, error: outcome.kind });
        const detail = outcome.retryable && attempt > 1 ? `${outcome.detail} (${attempt} attempts)` : outcome.detail;
        throw new PChainError(method, outcome.kind, detail, { rpcCode: outcome.rpcCode, nodeMessage: outcome.nodeMessage, cause: outcome.cause });
      }
      try {
        await sleep(this.backoffDelay(attempt), signal);
      } catch (err) {
        this.report({ method, ms: performance.now() - started, attempts: attempt, error: 'aborted' });
        throw err;
      }
    }
  }

  private report(event: PChainCallEvent): void {
    try {
      this.observe?.(event);
    } catch {
      // Metrics must never break a node call.
    }
  }

  /** Full jitter: uniform in [0, min(max, base * 2^(attempt-1))], so retrying clients spread out. */
  private backoffDelay(attempt: number): number {
    const ceiling = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (attempt - 1));
    return Math.random() * ceiling;
  }

  /** One attempt; a failure is returned, except the caller's abort, which is thrown (its reason). */
  private async attempt(method: string, params: Record<string, unknown>, callerSignal: AbortSignal | undefined): Promise<{ result: unknown } | AttemptFailure> {
    const id = this.nextId++;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([timeout, callerSignal]) : timeout;
    let status: number;
    let text: string;
    try {
      const res = await fetch(this.url, {
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

  /** Reads `result` through a parser; a parser error becomes a 'bad-response' PChainError. */
  private async typed<T>(method: string, params: Record<string, unknown>, read: (result: unknown) => T, opts: CallOptions = {}): Promise<T> {
    const result = await this.call(method, params, opts);
    try {
      return read(result);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new PChainError(method, 'bad-response', `unexpected result: ${detail}`, { cause: err });
    }
  }

  /** The height of the last accepted P-Chain block. */
  getHeight(opts: CallOptions = {}): Promise<number> {
    return this.typed('platform.getHeight', {}, readHeight, opts);
  }

  /** The height validators sign at by default (protocol.md section 5). */
  getProposedHeight(opts: CallOptions = {}): Promise<number> {
    return this.typed('platform.getProposedHeight', {}, readHeight, opts);
  }

  /**
   * The subnet's current validators. For a permissioned (non-L1) subnet the result lists its
   * validators without keys; their keys are their Primary Network registrations, fetched with a
   * second call filtered to those node IDs, as the P-Chain's own validator set does.
   */
  async getCurrentValidators(subnetId: Uint8Array, opts: CallOptions = {}): Promise<ValidatorEntry[]> {
    const method = 'platform.getCurrentValidators';
    const { entries, keysOnPrimaryNetwork } = await this.typed(
      method,
      { subnetID: idToString(subnetId) },
      parseCurrentValidatorsDetailed,
      opts,
    );
    if (keysOnPrimaryNetwork.length === 0 || isPrimaryNetwork(subnetId)) return entries;

    const primary = await this.typed(
      method,
      { subnetID: idToString(PRIMARY_NETWORK_ID), nodeIDs: keysOnPrimaryNetwork },
      parseCurrentValidatorsDetailed,
      opts,
    );
    const keyOf = new Map(primary.entries.map((e) => [e.nodeId, e.publicKey] as const));
    const lookedUp = new Set(keysOnPrimaryNetwork);
    return entries.map((e) => (lookedUp.has(e.nodeId) ? { ...e, publicKey: keyOf.get(e.nodeId) ?? null } : e));
  }

  /**
   * The subnet's validator set at a P-Chain height, or at the proposed height. A height above the
   * node's last accepted block rejects with UnfinalizedHeightError. (An unknown subnet has an
   * empty set: avalanchego answers `{}` for it.)
   */
  async getValidatorsAt(height: number | 'proposed', subnetId: Uint8Array, opts: CallOptions = {}): Promise<ValidatorEntry[]> {
    if (height !== 'proposed' && (!Number.isSafeInteger(height) || height < 0)) {
      throw new RangeError(`P-Chain height must be a non-negative integer or 'proposed', got ${height}`);
    }
    try {
      return await this.typed('platform.getValidatorsAt', { height, subnetID: idToString(subnetId) }, parseValidatorsAtResult, opts);
    } catch (err) {
      const answer = rpcAnswer(err);
      const unfinalized = answer === undefined ? null : UNFINALIZED_HEIGHT.exec(answer);
      if (unfinalized && height !== 'proposed') throw new UnfinalizedHeightError(height, Number(unfinalized[1]));
      throw err;
    }
  }

  /**
   * The subnet that validates a blockchain: the default signing subnet of its messages. A chain
   * the node does not know rejects with UnknownChainError.
   */
  async validatedBy(blockchainId: Uint8Array, opts: CallOptions = {}): Promise<Uint8Array> {
    try {
      return await this.typed(
        'platform.validatedBy',
        { blockchainID: idToString(blockchainId) },
        (result) => {
          if (!isRecord(result) || typeof result.subnetID !== 'string') throw new Error('missing subnetID');
          return parseCb58Id(result.subnetID, 'subnetID');
        },
        opts,
      );
    } catch (err) {
      const answer = rpcAnswer(err);
      if (answer !== undefined && UNKNOWN_BLOCKCHAIN.test(answer)) throw new UnknownChainError(idToString(blockchainId), answer);
      throw err;
    }
  }

  /** A subnet's owner and L1 fields. A subnet the node does not know rejects with UnknownSubnetError. */
  async getSubnet(subnetId: Uint8Array, opts: CallOptions = {}): Promise<SubnetInfo> {
    try {
      return await this.readSubnet(subnetId, opts);
    } catch (err) {
      const answer = rpcAnswer(err);
      if (answer !== undefined && UNKNOWN_SUBNET.test(answer)) throw new UnknownSubnetError(idToString(subnetId), answer);
      throw err;
    }
  }

  private readSubnet(subnetId: Uint8Array, opts: CallOptions): Promise<SubnetInfo> {
    return this.typed('platform.getSubnet', { subnetID: idToString(subnetId) }, (result) => {
      if (!isRecord(result)) throw new Error('result is not an object');
      const id = (field: string): Uint8Array => {
        const v = result[field];
        if (v === undefined || v === null) return new Uint8Array(32);
        if (typeof v !== 'string') throw new Error(`${field} is not a cb58 string`);
        return parseCb58Id(v, field);
      };
      const address = result.managerAddress;
      return {
        isPermissioned: result.isPermissioned === true,
        conversionId: id('conversionID'),
        managerChainId: id('managerChainID'),
        managerAddress:
          address === undefined || address === null ? new Uint8Array(0) : hexToBytes(String(address), 'managerAddress'),
        raw: result,
      };
    }, opts);
  }

  /** The transaction's bytes (hex encoding; its 4-byte checksum verified and removed). */
  getTx(txId: Uint8Array, encoding: 'hex', opts?: CallOptions): Promise<Uint8Array>;
  /** The transaction as JSON: `{unsignedTx, credentials, id}`. Large integers arrive as strings. */
  getTx(txId: Uint8Array, encoding: 'json', opts?: CallOptions): Promise<Record<string, unknown>>;
  getTx(txId: Uint8Array, encoding: 'json' | 'hex', opts: CallOptions = {}): Promise<Uint8Array | Record<string, unknown>> {
    return this.typed('platform.getTx', { txID: idToString(txId), encoding }, (result) => {
      if (!isRecord(result)) throw new Error('result is not an object');
      if (encoding === 'json') {
        if (!isRecord(result.tx)) throw new Error('tx is not an object');
        return result.tx;
      }
      if (typeof result.tx !== 'string') throw new Error('tx is not a hex string');
      return stripHexChecksum(hexToBytes(result.tx, 'tx'));
    }, opts);
  }

  getTxStatus(txId: Uint8Array, opts: CallOptions = {}): Promise<{ status: TxStatus; reason?: string }> {
    return this.typed('platform.getTxStatus', { txID: idToString(txId) }, (result) => {
      if (!isRecord(result) || typeof result.status !== 'string' || !TX_STATUSES.includes(result.status)) {
        throw new Error(`status must be one of ${TX_STATUSES.join(', ')}`);
      }
      const status = result.status as TxStatus;
      return typeof result.reason === 'string' && result.reason !== '' ? { status, reason: result.reason } : { status };
    }, opts);
  }
}

// avalanchego's error texts for a thing that does not exist (vms/platformvm/validators/manager.go
// makeValidatorSet and GetSubnetID, state/state.go GetSubnetOwner; database.ErrNotFound reads
// "not found"). They arrive as JSON-RPC error -32000 with the text as the message.
/** `failed to get validator set at H: failed to fetch validator set at unfinalized height with SubnetID = S: current P-chain height (C) < requested P-Chain height (H)` */
const UNFINALIZED_HEIGHT = /failed to fetch validator set at unfinalized height.*current P-chain height \((\d+)\) < requested P-Chain height/;
/** `problem retrieving blockchain "ID": not found`, or `"ID" is not a blockchain` for a transaction that is not a CreateChainTx. */
const UNKNOWN_BLOCKCHAIN = /^problem retrieving blockchain "[^"]*": not found$|^"[^"]*" is not a blockchain$/;
/** `not found`, or `"ID" is not a subnet` for a transaction that is not a CreateSubnetTx. */
const UNKNOWN_SUBNET = /^not found$|^"[^"]*" is not a subnet$/;

/** The node's own error text when `err` is a JSON-RPC error answer. */
function rpcAnswer(err: unknown): string | undefined {
  return err instanceof PChainError && err.kind === 'rpc' ? err.nodeMessage : undefined;
}

function isPrimaryNetwork(subnetId: Uint8Array): boolean {
  return bytesEqual(subnetId, PRIMARY_NETWORK_ID);
}

function readHeight(result: unknown): number {
  if (!isRecord(result)) throw new Error('result is not an object');
  const height = parseWeight(result.height, 'result', 'height');
  if (height > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`height ${height} is beyond 2^53`);
  return Number(height);
}

/** avalanchego's formatting.Hex appends the last 4 bytes of sha256(bytes) as a checksum. */
function stripHexChecksum(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 4) throw new Error('hex tx is too short to carry its checksum');
  const body = bytes.subarray(0, bytes.length - 4);
  if (!bytesEqual(sha256(body).subarray(-4), bytes.subarray(bytes.length - 4))) {
    throw new Error('hex tx has a bad checksum');
  }
  return Uint8Array.from(body);
}

export { PChainError, type PChainErrorKind } from './errors.js';
