// One concept for every bounded part of the service that is full (aggregations under way, the BLS
// worker queue): the work was refused, not lost, and the client should retry shortly.

export class OverloadedError extends Error {
  override readonly name = 'OverloadedError';
  constructor(
    /** What is full, for logs: may name internals. */
    message: string,
    /** When a retry has a chance. */
    readonly retryAfterSeconds: number,
    /** What a client is told. */
    readonly clientMessage: string = message,
  ) {
    super(message);
  }
}
