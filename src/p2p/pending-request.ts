// A P2PConnection's ACP-118 request from ask() to its answer (its own ticket), and request()'s
// Promise form over ask().
import type { AskDone, AskTicket, CancelWhy } from '../util/ask.js';
import type { P2PAnswer } from './connection-types.js';

export class PendingRequest implements AskTicket {
  constructor(
    private readonly owner: { forget(p: PendingRequest): void },
    readonly requestId: number,
    readonly chainId: Uint8Array,
    readonly deadline: number,
    /**
     * The connection's timer times it out at its deadline (request()); otherwise its caller does
     * (ask()), and the timer only sweeps it up should the caller never cancel.
     */
    readonly timedHere: boolean,
    readonly done: AskDone<P2PAnswer>,
  ) {}

  cancel(_why: CancelWhy): void {
    this.owner.forget(this);
  }
}

/** A request sent with `send`, as a Promise that also ends, with `aborted()`, when `signal` fires. */
export function askAsPromise(send: (done: AskDone<P2PAnswer>) => AskTicket, signal: AbortSignal | undefined, aborted: () => Error): Promise<P2PAnswer> {
  return new Promise<P2PAnswer>((resolve, reject) => {
    let onAbort: (() => void) | undefined;
    const ticket = send((err, answer) => {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(answer!);
    });
    if (signal) {
      onAbort = () => {
        ticket.cancel('cancelled');
        reject(aborted());
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}
