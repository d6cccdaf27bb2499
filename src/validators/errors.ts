// Typed errors of the validators layer. Each carries the piece of input a user has to fix
// (the node ID, the JSON entry, the node call), so the message alone is enough to act on.

/**
 * A validator list that cannot become a canonical set, or a P-Chain result / validators file
 * that does not have the expected shape. `entry` names the offending item (usually a NodeID).
 */
export class ValidatorSetError extends Error {
  override readonly name = 'ValidatorSetError';
  constructor(
    readonly reason: string,
    /** The node ID or JSON path of the entry at fault, when there is one. */
    readonly entry?: string,
  ) {
    super(entry === undefined ? reason : `validator ${entry}: ${reason}`);
  }
}

/** A quorum percentage outside the integers 0–100. */
export class QuorumPercentageError extends Error {
  override readonly name = 'QuorumPercentageError';
  constructor(
    readonly what: string,
    readonly value: unknown,
  ) {
    super(`${what} must be an integer from 0 to 100, got ${describe(value)}`);
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

// P-Chain node calls: the message always names the node call that failed, and httpStatus()
// tells the HTTP layer how to answer a client whose request needed that call.

export type PChainErrorKind =
  /** No connection (refused, reset, DNS), after the retries. */
  | 'unreachable'
  /** No complete answer within the per-call timeout, after the retries. */
  | 'timeout'
  /** The node answered with a JSON-RPC error (never retried: asking again gives the same). */
  | 'rpc'
  /** The node answered something that is not the expected JSON-RPC result. */
  | 'bad-response';

export class PChainError extends Error {
  override readonly name = 'PChainError';
  /** The JSON-RPC error code when kind is 'rpc' (e.g. -32000). */
  readonly rpcCode?: number;

  constructor(
    /** The JSON-RPC method, e.g. `platform.getValidatorsAt`. */
    readonly method: string,
    readonly kind: PChainErrorKind,
    detail: string,
    options: { rpcCode?: number; cause?: unknown } = {},
  ) {
    super(`P-Chain node call ${method} failed: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.rpcCode !== undefined) this.rpcCode = options.rpcCode;
  }

  /** 504 for a timeout, 503 when the node cannot be reached, 502 for a bad or error answer. */
  httpStatus(): 502 | 503 | 504 {
    if (this.kind === 'timeout') return 504;
    if (this.kind === 'unreachable') return 503;
    return 502;
  }
}
