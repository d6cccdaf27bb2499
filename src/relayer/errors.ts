// The relayer's typed errors. They carry no HTTP status: server/errors.ts maps each code to one
// (no-route and bad-message are the caller's mistake, not-found is 404, stopping and overloaded
// say "try again later", lease-lost and conflict say another relayer owns the message now).

export type RelayerErrorCode =
  /** No configured route allows the message (source, destination, an allowlist or the gas cap). */
  | 'no-route'
  /** The block holds no message with that ID, or no message has that ID. */
  | 'not-found'
  /** The bytes are not an unsigned Warp message carrying a Teleporter message. */
  | 'bad-message'
  /** This relayer does not hold the route's lease (with the safety margin): nothing is broadcast. */
  | 'lease-lost'
  /** Another writer changed the message's record first (conditional update lost). */
  | 'conflict'
  /** The relayer is stopping and takes no new messages. */
  | 'stopping'
  /** A source or destination did not answer in time. */
  | 'unavailable'
  /** The relayer's options are wrong (a route without a source or destination, a duplicate route). */
  | 'config';

export class RelayerError extends Error {
  override readonly name = 'RelayerError';
  constructor(
    readonly code: RelayerErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The message of anything thrown, for a record's `reason` and the logs. */
export function reasonOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
