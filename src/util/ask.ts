// The callback form of a signer request, shared by both transports and the aggregator
// (aggregator/peer-source.ts states the contract): `done` hears how the request ended, once,
// and a ticket lets the caller stop waiting. The aggregator sends ~1,000 requests per
// aggregation; a Promise, a timer and an abort listener for each, in every layer they pass
// through, was most of the event loop's cost per answer (bench --cpu-prof), so the hot path uses
// this form and each transport's Promise API is built over it.

/** How a request ended: an answer, or an error in the failure vocabulary (request-failure.ts). Called at most once, never before `ask` returned. */
export type AskDone<A> = (err: Error | undefined, answer: A | undefined) => void;

/** Why the caller gave up on a request: its deadline passed, or it is no longer needed. */
export type CancelWhy = 'timeout' | 'cancelled';

/** A request on its way. */
export interface AskTicket {
  /**
   * The caller stops waiting: the transport forgets the request (frees its slot, ignores a late
   * answer) and never calls its `done`. Idempotent; does nothing once `done` was called.
   */
  cancel(why: CancelWhy): void;
}

/**
 * A transport's request from ask() to its answer, its own ticket: cancelling it makes its owner
 * (the session or connection that sent it) forget it, freeing its slot and ignoring a late
 * answer. Each transport extends it with what it keeps per request.
 */
export abstract class PendingAsk<A> implements AskTicket {
  constructor(
    private readonly owner: { forget(p: PendingAsk<A>): void },
    /** Epoch ms: when the owner gives up on it, should its caller never cancel it. */
    readonly deadline: number,
    readonly done: AskDone<A>,
  ) {}

  cancel(_why: CancelWhy): void {
    this.owner.forget(this);
  }
}

class FailedAsk<A> implements AskTicket {
  private cancelled = false;

  constructor(err: Error, done: AskDone<A>) {
    queueMicrotask(() => {
      if (!this.cancelled) done(err, undefined);
    });
  }

  cancel(): void {
    this.cancelled = true;
  }
}

/** A request that failed before it was sent (not connected, overloaded): `done` hears it a microtask after `ask` returns. */
export function failedAsk<A>(err: Error, done: AskDone<A>): AskTicket {
  return new FailedAsk(err, done);
}

/**
 * The request `send` makes, as a Promise (the transports' API for callers other than the
 * aggregator): it also ends with `aborted()` when `signal` fires and, with `timeout`, with
 * `timeout.error()` once `timeout.ms` have passed; either way the ticket is cancelled.
 */
export function askAsPromise<A>(
  send: (done: AskDone<A>) => AskTicket,
  opts: { signal?: AbortSignal | undefined; aborted: () => Error; timeout?: { ms: number; error: () => Error } },
): Promise<A> {
  const { signal, aborted, timeout } = opts;
  return new Promise<A>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const cleanup = (): void => {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    };
    const ticket = send((err, answer) => {
      cleanup();
      if (err) reject(err);
      else resolve(answer as A);
    });
    if (timeout) {
      timer = setTimeout(() => {
        cleanup();
        ticket.cancel('timeout');
        reject(timeout.error());
      }, timeout.ms);
    }
    if (signal) {
      onAbort = () => {
        cleanup();
        ticket.cancel('cancelled');
        reject(aborted());
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}
