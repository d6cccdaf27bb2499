// Typed errors of the validators layer. Each carries the piece of input a user has to fix
// (the node ID, the height), so the message alone is enough to act on.

/** A validator list that cannot become a canonical set. `entry` names the offending item (usually a NodeID). */
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

/** The height is older than validatorSets.maxLookback allows. */
export class LookbackExceededError extends Error {
  override readonly name = 'LookbackExceededError';
  constructor(
    readonly height: number,
    readonly currentHeight: number,
    readonly maxLookback: number,
  ) {
    super(
      `${height} is more than ${maxLookback} heights below the current P-Chain height ${currentHeight}; ` +
        `this service reads validator sets back to height ${currentHeight - maxLookback} (0 asks for the current set)`,
    );
  }
}
