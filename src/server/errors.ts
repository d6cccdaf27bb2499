// The one place that decides what a client is told about an error. The table maps each error
// class, whichever wing throws it, to a status, a message and headers; sendError renders that in
// the request's dialect. Domain errors carry no HTTP status: HttpError is the HTTP layer's own,
// for what only it knows (a field of the request, a rate limit). Body-parser errors are answered
// by body-errors.ts; anything else is an unexpected 500 whose detail goes to the log only.
import type { Response } from 'express';
import type { Logger } from 'pino';
import { WarpFormatError } from '../warp/errors.js';
import { ChosenHeightError, DeadlineExceededError, NoSigningValidatorsError, QuorumNotReachedError, SigningSubnetNotAllowedError } from '../aggregator/errors.js';
import { BlsPoolClosedError } from '../bls-pool/errors.js';
import { OverloadedError } from '../util/overloaded.js';
import { LookbackExceededError } from '../validators/errors.js';
import {
  DestinationChainError,
  NodeError,
  NodeNotConfiguredError,
  UnfinalizedHeightError,
  UnknownChainError,
  UnknownSubnetError,
  type NodeErrorKind,
} from '../node/errors.js';
import { L1RequestError, type L1RequestErrorKind } from '../l1/errors.js';
import { RelayerError, type RelayerErrorCode } from '../relayer/errors.js';
import { bodyParserProblem } from './body-errors.js';
import { GLACIER, type Dialect } from './dialects.js';

/** An answer the HTTP layer decided on: status, message and headers as thrown. */
export class HttpError extends Error {
  override readonly name: string = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A client mistake in one field of the request. */
export class BadRequestError extends HttpError {
  override readonly name = 'BadRequestError';
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(400, `${field}: ${reason}`);
  }
}

/** Runs a warp parser on a field's value: a format error becomes a 400 naming the field. */
export function parseField<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof WarpFormatError) throw new BadRequestError(field, err.reason + (err.offset === undefined ? '' : ` (${err.what} at byte ${err.offset})`));
    throw err;
  }
}

interface Answer {
  status: number;
  message: string;
  headers?: Record<string, string>;
  /** False for an answer that wraps an unexpected error (logged, a 500). */
  expected?: boolean;
}

/** `heightField`: how the request named the P-Chain height, which messages about the height start with. */
type ToAnswer<E> = (err: E, heightField: string) => Answer;
type ErrorClass<E> = abstract new (...args: never[]) => E;

function row<E extends Error>(errorClass: ErrorClass<E>, toAnswer: ToAnswer<E>): [ErrorClass<Error>, ToAnswer<Error>] {
  // Sound: a row is only ever looked up by the class of the error it is given.
  return [errorClass, toAnswer as ToAnswer<Error>];
}

/** A node call that failed: 504 when it timed out, 503 when the node cannot be reached, 502 for a bad or error answer. */
const NODE_ERROR_STATUS: Record<NodeErrorKind, 502 | 503 | 504> = { timeout: 504, unreachable: 503, rpc: 502, 'bad-response': 502 };

/** What is wrong with a request for a P-Chain L1 message: a thing that is not there (404) or a mistake in the request (400). */
const L1_REQUEST_STATUS: Record<L1RequestErrorKind, 400 | 404> = {
  'not-found': 404,
  uncommitted: 404,
  'not-converted': 404,
  'wrong-tx-type': 400,
  'bad-justification': 400,
};

/**
 * What the relayer could not take: a message no route allows is refused (403: the operator's
 * routes decide, retrying cannot help), one that is not where the request says is 404, a
 * relayer stopping, no longer holding the route's lease (another replica does) or not reaching a
 * chain is 503, a record another writer changed first is 409.
 */
const RELAYER_ERROR_STATUS: Record<RelayerErrorCode, 400 | 403 | 404 | 409 | 503> = {
  'bad-message': 400,
  'no-route': 403,
  'not-found': 404,
  conflict: 409,
  stopping: 503,
  'lease-lost': 503,
  unavailable: 503,
  // A route the relayer was built without is the operator's configuration, not the caller's.
  config: 503,
};

const aboutHeight = (err: Error, heightField: string): Answer => ({ status: 400, message: `${heightField}: ${err.message}` });

/**
 * Error class → answer. An error is looked up by its own class, then its base classes (a
 * BadRequestError answers as the HttpError it is). 5xx: the service or the network, worth a
 * retry; 4xx: the client's own mistake, permanent.
 */
const ERROR_TABLE: ReadonlyMap<unknown, ToAnswer<Error>> = new Map([
  row(HttpError, (e) => ({ status: e.status, message: e.message, headers: e.headers })),
  row(OverloadedError, (e) => ({ status: 503, message: e.clientMessage, headers: { 'retry-after': String(e.retryAfterSeconds) } })),
  // Shutting down: another instance (or this one, restarted) can take the retry.
  row(BlsPoolClosedError, (e) => ({ status: 503, message: e.message })),
  // Signers missing now may be back in a moment (peers redial), and what was verified is cached.
  row(QuorumNotReachedError, (e) => ({ status: 503, message: e.message, headers: { 'retry-after': '1' } })),
  row(DeadlineExceededError, (e) => ({ status: 504, message: e.message })),
  row(UnfinalizedHeightError, aboutHeight),
  row(LookbackExceededError, aboutHeight),
  // No signer in the set at a height the service chose is the network's state; at a height the client chose, its choice.
  row(NoSigningValidatorsError, (e, heightField) => (e.heightSource === 'explicit' ? aboutHeight(e, heightField) : { status: 503, message: e.message })),
  row(SigningSubnetNotAllowedError, (e) => ({ status: 403, message: e.message })),
  // The destination chain named (or the Teleporter message's) could not be read: never a silent other height.
  row(DestinationChainError, (e) => ({ status: 502, message: e.message })),
  // What the cause would blame on the client's height is the network's state at a height the service chose.
  row(ChosenHeightError, (e, heightField) => {
    const cause = classifyError(e.cause, heightField);
    if (!cause.expected) return cause;
    return cause.status === 400 ? { status: 503, message: e.message, headers: { 'retry-after': '1' } } : { status: cause.status, message: cause.message, headers: cause.headers };
  }),
  row(NodeNotConfiguredError, (e) => ({ status: 503, message: e.message })),
  row(UnknownChainError, (e) => ({ status: 404, message: e.message })),
  row(UnknownSubnetError, (e) => ({ status: 404, message: e.message })),
  row(L1RequestError, (e) => ({ status: L1_REQUEST_STATUS[e.kind], message: e.message })),
  row(NodeError, (e) => ({ status: NODE_ERROR_STATUS[e.kind], message: e.message })),
  row(RelayerError, (e) => ({ status: RELAYER_ERROR_STATUS[e.code], message: e.message, headers: RELAYER_ERROR_STATUS[e.code] === 503 ? { 'retry-after': '5' } : ({} as Record<string, string>) })),
]);

function tableRowOf(err: object): ToAnswer<Error> | undefined {
  for (let proto = Object.getPrototypeOf(err) as object | null; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    const toAnswer = ERROR_TABLE.get((proto as { constructor?: unknown }).constructor);
    if (toAnswer) return toAnswer;
  }
  return undefined;
}

interface Classified {
  status: number;
  message: string;
  headers: Record<string, string>;
  /** False for the unexpected: a 500 whose cause is logged. */
  expected: boolean;
}

/** Maps any error to a status, a message fit for a client and headers. */
export function classifyError(err: unknown, heightField = GLACIER.fields.pChainHeight[0]): Classified {
  const toAnswer = typeof err === 'object' && err !== null ? tableRowOf(err) : undefined;
  if (toAnswer) {
    const { status, message, headers = {}, expected = true } = toAnswer(err as Error, heightField);
    return { status, message, headers, expected };
  }
  const body = bodyParserProblem(err);
  if (body) return { status: body.status, message: body.message, headers: {}, expected: true };
  return { status: 500, message: 'internal error', headers: {}, expected: false };
}

/** Answers `err` in `dialect`'s shape; an unexpected one is logged with its detail. */
export function sendError(res: Response, dialect: Dialect, err: unknown, logger: Logger): void {
  const c = classifyError(err, dialect.fields.pChainHeight[0]);
  if (!c.expected) logger.error({ err }, 'unexpected error');
  for (const [k, v] of Object.entries(c.headers)) res.setHeader(k, v);
  res.status(c.status).json(dialect.errorBody(c.status, c.message));
}
