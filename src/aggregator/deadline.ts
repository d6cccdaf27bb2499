// One request's deadline, from its arrival: everything it does (P-Chain reads, collecting,
// checking) ends by `answerBy`. P-Chain reads and collecting stop earlier, at `collectUntil`, so
// that the final check still fits; `signal` aborts then, with a DeadlineExceededError that says
// what was under way (`phase`), and every read that honours the signal stops waiting.
import { DeadlineExceededError } from './errors.js';

/**
 * Collecting stops this long before the deadline, so the final pairing (and a bisection, if a
 * bad signature shows up at the last moment) still answers within it.
 */
function finishReserveMs(deadlineMs: number): number {
  return Math.min(200, Math.floor(deadlineMs / 10));
}

export class Deadline {
  /** Epoch ms: the answer is due. */
  readonly answerBy: number;
  /** Epoch ms: P-Chain reads and collecting stop. */
  readonly collectUntil: number;
  /** What the request is doing, for the message of the error it ends with. */
  phase = 'the request was being prepared';
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly deadlineMs: number,
    readonly startedAt: number = Date.now(),
  ) {
    this.answerBy = startedAt + deadlineMs;
    this.collectUntil = this.answerBy - finishReserveMs(deadlineMs);
    this.timer = setTimeout(() => this.controller.abort(this.exceeded(this.phase)), Math.max(0, this.collectUntil - Date.now()));
  }

  /** Aborts at `collectUntil` with a DeadlineExceededError naming the phase then under way. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  exceeded(during: string): DeadlineExceededError {
    return new DeadlineExceededError(this.deadlineMs, during);
  }

  /** Stops the timer (the request has been answered). */
  dispose(): void {
    clearTimeout(this.timer);
  }
}
