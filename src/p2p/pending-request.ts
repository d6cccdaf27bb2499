// A P2PConnection's ACP-118 request from ask() to its answer (its own ticket).
import { PendingAsk, type AskDone } from '../util/ask.js';
import type { P2PAnswer } from './connection-types.js';

export class PendingRequest extends PendingAsk<P2PAnswer> {
  constructor(
    owner: { forget(p: PendingRequest): void },
    readonly requestId: number,
    readonly chainId: Uint8Array,
    deadline: number,
    /**
     * The connection's timer times it out at its deadline (request()); otherwise its caller does
     * (ask()), and the timer only sweeps it up should the caller never cancel.
     */
    readonly timedHere: boolean,
    done: AskDone<P2PAnswer>,
  ) {
    super(owner, deadline, done);
  }
}
