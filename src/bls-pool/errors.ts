// Errors of the BLS pool a caller may see besides OverloadedError (util/overloaded.ts: the queue
// is full).

/** A job after close(): the service is shutting down, so the client should retry elsewhere. */
export class BlsPoolClosedError extends Error {
  override readonly name = 'BlsPoolClosedError';
  constructor() {
    super('the service is shutting down; retry shortly');
  }
}

/** A job failed inside the worker (a bug, or input the job refuses); its task-mates did not. */
export class BlsJobError extends Error {
  override readonly name = 'BlsJobError';
}
