// A P2PConnection's ACP-118 request from ask() to its answer (its own ticket).
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
