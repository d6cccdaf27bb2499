// What can be wrong with a request for a P-Chain L1 message, as facts about the request: the
// transaction or subnet it names does not exist, is not committed, is of the wrong kind, or its
// justification says nothing signable. No HTTP here: the service maps each kind to a status
// (server/errors.ts), the signer turns them into refusals.

export type L1RequestErrorKind =
  /** The transaction, subnet or L1 validator is not on the P-Chain. */
  | 'not-found'
  /** The transaction is processing, or was dropped or aborted: no committed state to sign. */
  | 'uncommitted'
  /** The subnet exists but was never converted to an L1. */
  | 'not-converted'
  /** The transaction is not one that produces an L1 message. */
  | 'wrong-tx-type'
  /** The justification is an L1ValidatorRegistrationJustification whose message is not a RegisterL1Validator. */
  | 'bad-justification';

export class L1RequestError extends Error {
  override readonly name = 'L1RequestError';
  constructor(
    readonly kind: L1RequestErrorKind,
    /** What is wrong, without the field. */
    readonly reason: string,
    /** The part of the request at fault (`txHash`, `justification`), which the message starts with. */
    readonly field?: string,
  ) {
    super(field === undefined ? reason : `${field}: ${reason}`);
  }
}
