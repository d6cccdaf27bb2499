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
  /** The node's error message when kind is 'rpc'. */
  readonly nodeMessage?: string;

  constructor(
    /** The JSON-RPC method, e.g. `platform.getValidatorsAt`. */
    readonly method: string,
    readonly kind: PChainErrorKind,
    detail: string,
    options: { rpcCode?: number; nodeMessage?: string; cause?: unknown } = {},
  ) {
    super(`P-Chain node call ${method} failed: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.rpcCode !== undefined) this.rpcCode = options.rpcCode;
    if (options.nodeMessage !== undefined) this.nodeMessage = options.nodeMessage;
  }

  /** 504 for a timeout, 503 when the node cannot be reached, 502 for a bad or error answer. */
  httpStatus(): 502 | 503 | 504 {
    if (this.kind === 'timeout') return 504;
    if (this.kind === 'unreachable') return 503;
    return 502;
  }
}

// What the node's answers mean for the client that asked: the things it named do not exist, or
// the height it named has no validator set to read. Typed so the HTTP layer maps them to 4xx in
// one place (server/app.ts classifyError) instead of passing the node's text on as a 502.

/** platform.validatedBy: the node knows no blockchain with this ID. */
export class UnknownChainError extends Error {
  override readonly name = 'UnknownChainError';
  constructor(
    /** cb58 */
    readonly chainId: string,
    /** The node's own words, for logs. */
    readonly nodeAnswer: string,
  ) {
    super(`source chain ${chainId} is not a blockchain the P-Chain knows`);
  }
}

/** platform.getSubnet: the node knows no subnet with this ID. */
export class UnknownSubnetError extends Error {
  override readonly name = 'UnknownSubnetError';
  constructor(
    /** cb58 */
    readonly subnetId: string,
    readonly nodeAnswer: string,
  ) {
    super(`subnet ${subnetId} is not known to the P-Chain`);
  }
}

/** A P-Chain height a client asked for at which no validator set can be read. */
export abstract class PChainHeightError extends Error {
  constructor(
    readonly height: number,
    message: string,
  ) {
    super(message);
  }
}

/** platform.getValidatorsAt: the height is above the node's last accepted block. */
export class UnfinalizedHeightError extends PChainHeightError {
  override readonly name = 'UnfinalizedHeightError';
  constructor(
    height: number,
    /** The node's current height, when its answer says it. */
    readonly currentHeight: number | undefined,
  ) {
    const current = currentHeight === undefined ? '' : ` ${currentHeight}`;
    super(height, `${height} is above the current P-Chain height${current}: there is no validator set at that height yet`);
  }
}

/** The height is older than validatorSets.maxLookback allows. */
export class LookbackExceededError extends PChainHeightError {
  override readonly name = 'LookbackExceededError';
  constructor(
    height: number,
    readonly currentHeight: number,
    readonly maxLookback: number,
  ) {
    super(
      height,
      `${height} is more than ${maxLookback} heights below the current P-Chain height ${currentHeight}; ` +
        `this service reads validator sets back to height ${currentHeight - maxLookback} (0 asks for the current set)`,
    );
  }
}
