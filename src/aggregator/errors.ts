// Errors an aggregation ends with, each with a message written for the relayer operator who will
// read it and the figures behind it. None carries an HTTP status: server/errors.ts maps
// each kind (one place). A full service is util/overloaded.ts OverloadedError.

export interface CollectionStats {
  /** Validators in the canonical set (after merging shared keys). */
  validators: number;
  /** Validators with no connected signer peer when their turn came: never asked. */
  notConnected: number;
  /** Connected validators not asked because the collection ended first. */
  notAsked: number;
  /** Requests sent to signer peers. */
  asked: number;
  /** Requests answered with a signature (valid or not). */
  answered: number;
  /** Requests answered with a refusal. */
  refused: number;
  /** Of the refusals: "not yet executed or unknown" (an EVM chain that may not have accepted the block yet), asked again until the deadline. */
  notYet: number;
  /** Requests with no answer within the request timeout or by the deadline. */
  timedOut: number;
  /** Answered signatures that failed a check (their peers are penalized). */
  invalid: number;
  /** Requests that failed otherwise: disconnects, protocol errors, a full peer queue. */
  failed: number;
  /** Signatures taken from the signature cache. */
  fromCache: number;
}

/** Less than the quorum's weight signed by the deadline, or after every connected validator was asked. */
export class QuorumNotReachedError extends Error {
  override readonly name = 'QuorumNotReachedError';
  constructor(
    readonly signedWeight: bigint,
    readonly requiredWeight: bigint,
    readonly totalWeight: bigint,
    readonly stats: CollectionStats,
    why: string,
    /** What the transports know of why validators stayed silent, with the remedy. */
    readonly hint?: string,
  ) {
    const pct = totalWeight === 0n ? '0' : ((Number(signedWeight) * 100) / Number(totalWeight)).toFixed(2);
    const notAsked = stats.notAsked > 0 ? `, not asked ${stats.notAsked}` : '';
    const notYet = stats.notYet > 0 ? ` (${stats.notYet} of them: not yet executed or unknown, the source chain may not have accepted the message's block yet)` : '';
    super(
      `quorum not reached ${why}: signed weight ${signedWeight} of ${totalWeight} (${pct}%), required ${requiredWeight}; ` +
        `validators ${stats.validators}: asked ${stats.asked}, answered ${stats.answered}, refused ${stats.refused}${notYet}, ` +
        `timed out ${stats.timedOut}, invalid signatures ${stats.invalid}, failed ${stats.failed}, ` +
        `not connected ${stats.notConnected}${notAsked}, from cache ${stats.fromCache}` +
        (hint ? `; ${hint}` : ''),
    );
  }
}

/** The aggregation deadline passed before an answer could be given; `during` says what was under way. */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  constructor(
    readonly deadlineMs: number,
    readonly during: string,
  ) {
    super(`the aggregation deadline of ${deadlineMs} ms passed while ${during}`);
  }
}

/** Where a P-Chain height came from (validators/signing-height.ts HeightSource). */
type HeightSource = 'explicit' | 'epoch' | 'proposed';

/** What the service's own choice of height read: the words messages use. */
const CHOSEN: Record<Exclude<HeightSource, 'explicit'>, string> = {
  epoch: "the destination chain's current epoch height",
  proposed: "the P-Chain's proposed height",
};

/** The signing subnet's set at that height has no validator with a BLS key: nobody can sign. */
export class NoSigningValidatorsError extends Error {
  override readonly name = 'NoSigningValidatorsError';
  constructor(
    /** cb58 */
    readonly subnetId: string,
    readonly pChainHeight: number,
    /** 'explicit': the client's height (its choice); otherwise the network's state now. */
    readonly heightSource: HeightSource,
  ) {
    super(
      `subnet ${subnetId} had no validator with a BLS key at P-Chain height ${pChainHeight}` +
        (heightSource === 'explicit' ? ' (the subnet had no validators yet, or none left)' : ` (${CHOSEN[heightSource]}), so no one can sign for it`),
    );
  }
}

/** The signing subnet is not one this service serves (aggregation.allowedSigningSubnets). */
export class SigningSubnetNotAllowedError extends Error {
  override readonly name = 'SigningSubnetNotAllowedError';
  constructor(
    /** cb58 */
    readonly subnetId: string,
  ) {
    super(`signing subnet ${subnetId} is not served here (aggregation.allowedSigningSubnets)`);
  }
}

/**
 * The validator set at a height the service chose (a destination's epoch, the proposed height)
 * could not be read. `cause` is why; what would be the client's fault at a height it gave (above
 * the node's tip: the destination's node is ahead of ours) is the network's state here.
 */
export class ChosenHeightError extends Error {
  override readonly name = 'ChosenHeightError';
  constructor(
    readonly pChainHeight: number,
    readonly heightSource: Exclude<HeightSource, 'explicit'>,
    override readonly cause: unknown,
  ) {
    super(`the validator set at P-Chain height ${pChainHeight} (${CHOSEN[heightSource]}) could not be read: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
