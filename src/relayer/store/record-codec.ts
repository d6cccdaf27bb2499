// A MessageRecord as JSON, for stores that keep text (the embedded log, Redis). JSON has no
// bigint, so the record's bigint fields travel as decimal strings and come back as bigints;
// everything else is already plain JSON.
import type { MessageRecord, SourceMessage, Submission } from '../ports.js';

type Json = Record<string, unknown>;

function submissionToJson(s: Submission): Json {
  return { ...s, gasLimit: s.gasLimit.toString(), maxFeePerGas: s.maxFeePerGas.toString(), maxPriorityFeePerGas: s.maxPriorityFeePerGas.toString() };
}

function submissionFromJson(j: Json): Submission {
  return {
    ...(j as unknown as Submission),
    gasLimit: BigInt(j.gasLimit as string),
    maxFeePerGas: BigInt(j.maxFeePerGas as string),
    maxPriorityFeePerGas: BigInt(j.maxPriorityFeePerGas as string),
  };
}

/** The record as a JSON-safe object (bigints as decimal strings). */
export function recordToJson(r: MessageRecord): Json {
  return {
    ...r,
    message: { ...r.message, requiredGasLimit: r.message.requiredGasLimit.toString() },
    submissions: r.submissions.map(submissionToJson),
  };
}

/** The inverse of recordToJson. */
export function recordFromJson(j: Json): MessageRecord {
  const message = j.message as Json;
  return {
    ...(j as unknown as MessageRecord),
    message: { ...(message as unknown as SourceMessage), requiredGasLimit: BigInt(message.requiredGasLimit as string) },
    submissions: (j.submissions as Json[]).map(submissionFromJson),
  };
}

/** Delivered and skipped messages are finished: nothing more is done with them, and prune forgets them. */
export function isFinished(status: MessageRecord['status']): boolean {
  return status === 'delivered' || status === 'skipped';
}
