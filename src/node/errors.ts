// Errors of the node client. A failed call is one NodeError naming the method; what the node's
// answers mean for the caller (no such chain, subnet, L1 validator or height yet) are typed
// errors of their own, so each caller decides what they mean to its user. None of them knows
// HTTP: the service maps them to statuses (server/errors.ts).

export type NodeErrorKind =
  /** No connection (refused, reset, DNS), after the retries. */
  | 'unreachable'
  /** No complete answer within the per-call timeout, after the retries. */
  | 'timeout'
  /** The node answered with a JSON-RPC error (never retried: asking again gives the same). */
  | 'rpc'
  /** The node answered something that is not the expected JSON-RPC result. */
  | 'bad-response';

/**
 * A node call that did not produce a usable result. The message names the method and never the
 * node's URL (messages reach clients, and a URL may name an internal host); `url` has it, for
 * the operator's own logs and refusals (atUrl()).
 */
export class NodeError extends Error {
  override readonly name = 'NodeError';
  /** The JSON-RPC error code when kind is 'rpc' (e.g. -32000). */
  readonly rpcCode?: number;
  /** The node's error message when kind is 'rpc'. */
  readonly nodeMessage?: string;
  /** The endpoint called, e.g. `http://127.0.0.1:9650/ext/bc/P`. */
  readonly url: string;

  constructor(
    /** The JSON-RPC method, e.g. `platform.getValidatorsAt`. */
    readonly method: string,
    readonly kind: NodeErrorKind,
    /** What went wrong, without the method: `node unreachable: ECONNREFUSED (3 attempts)`. */
    readonly detail: string,
    options: { url?: string; rpcCode?: number; nodeMessage?: string; cause?: unknown; label?: string } = {},
  ) {
    super(`${options.label ?? 'P-Chain node'} call ${method} failed: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.url = options.url ?? '';
    if (options.rpcCode !== undefined) this.rpcCode = options.rpcCode;
    if (options.nodeMessage !== undefined) this.nodeMessage = options.nodeMessage;
  }

  /** The failure with the node's URL, for whoever runs that node (the signer's refusals, logs). */
  atUrl(): string {
    if (this.kind === 'rpc') return `${this.method} at ${this.url}: the node answered: ${this.nodeMessage ?? this.detail}`;
    if (this.kind === 'unreachable') return `${this.method}: node unreachable at ${this.url}: ${this.detail.replace(/^node unreachable: /, '')}`;
    return `${this.method} at ${this.url}: ${this.detail}`;
  }
}

/**
 * A destination chain's current epoch (proposervm.getCurrentEpoch) could not be read: the chain's
 * node is unreachable, answered an error or something that is not an epoch, or does not run the
 * chain. The message names the chain and the failure, never the URL (NodeError.url has it).
 */
export class DestinationChainError extends Error {
  override readonly name = 'DestinationChainError';
  constructor(
    /** cb58 */
    readonly chainId: string,
    readonly failure: NodeError,
  ) {
    super(`destination chain ${chainId}: its current epoch could not be read (${failure.method}): ${failure.detail}`, { cause: failure });
  }
}

/** No node is configured (`upstreams.node`): nothing can be read from the P-Chain. */
export class NodeNotConfiguredError extends Error {
  override readonly name = 'NodeNotConfiguredError';
  constructor(what: string) {
    super(`upstreams.node is not configured: ${what} cannot be read from the P-Chain`);
  }
}

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

/** platform.getL1Validator: the P-Chain has no L1 validator with this validation ID (never had, or removed). */
export class UnknownL1ValidatorError extends Error {
  override readonly name = 'UnknownL1ValidatorError';
  constructor(
    /** cb58 */
    readonly validationId: string,
    /** The node's error answer. */
    readonly answer: NodeError,
  ) {
    super(`L1 validator ${validationId} is not registered on the P-Chain`);
  }
}

/** platform.getValidatorsAt: the height is above the node's last accepted block. */
export class UnfinalizedHeightError extends Error {
  override readonly name = 'UnfinalizedHeightError';
  constructor(
    readonly height: number,
    /** The node's current height, when its answer says it. */
    readonly currentHeight: number | undefined,
  ) {
    const current = currentHeight === undefined ? '' : ` ${currentHeight}`;
    super(`${height} is above the current P-Chain height${current}: there is no validator set at that height yet`);
  }
}

/**
 * A P-Chain validator result, or a validators file, that does not have the expected shape.
 * `entry` names the offending item (usually a NodeID): a silently skipped or mis-read validator
 * would change the canonical order and break every bitset.
 */
export class ValidatorResultError extends Error {
  override readonly name = 'ValidatorResultError';
  /** `entry`: the node ID or JSON path of the entry at fault, when there is one. */
  constructor(readonly reason: string, readonly entry?: string) {
    super(entry === undefined ? reason : `validator ${entry}: ${reason}`);
  }
}
