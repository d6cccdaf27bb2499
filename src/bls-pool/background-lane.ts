// A lane for worker tasks that must never delay aggregation work: the handshake proof checks
// (~40 ms of pure-JS pairing each, and anyone who opens /v1/peers can ask for one). Jobs wait
// here, in a queue of their own, and go to the worker threads only while a thread is idle, so an
// aggregation task never queues behind them; and at most `maxRunning` run at once, so with two or
// more threads one is always free of them. A task already running is not interrupted: a
// finalize that arrives while every thread is busy waits for the first to finish, as it would
// for another aggregation's task. No I/O of its own: `send` is the worker pool.
//
// Under aggregation work that keeps every thread busy without a pause, these jobs wait; the
// peers they belong to wait in their handshake (the signer gives the service 120 s to welcome
// it) rather than slowing the aggregations down.
import type { Waiting } from './task-batcher.js';

export class BackgroundLane<J, R> {
  private readonly queue: Waiting<J, R>[] = [];
  private inFlight = 0;

  constructor(
    /** Runs one job on a worker thread; `addedAt`: when it joined the lane. */
    private readonly send: (job: J, addedAt: number) => Promise<R>,
    /** True while some worker thread has nothing to do and nothing waits for one. */
    private readonly threadIdle: () => boolean,
    /** Jobs of this lane running at once at most. */
    private readonly maxRunning: number,
    /** Jobs waiting at most; past it a job is refused with `full()`. */
    private readonly maxQueued: number,
    private readonly full: () => Error,
    private readonly now: () => number = Date.now,
  ) {
    if (!(maxRunning >= 1 && maxQueued >= 0)) throw new RangeError('a background lane needs maxRunning >= 1 and maxQueued >= 0');
  }

  /** Jobs waiting for an idle thread. */
  get queued(): number {
    return this.queue.length;
  }

  run(job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.queue.length >= this.maxQueued) {
        reject(this.full());
        return;
      }
      this.queue.push({ job, addedAt: this.now(), resolve, reject });
      this.pump();
    });
  }

  /** Starts waiting jobs while threads are idle; the pool calls it whenever a task settles. */
  pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.maxRunning && this.threadIdle()) {
      const next = this.queue.shift()!;
      this.inFlight++;
      let sent: Promise<R>;
      try {
        sent = this.send(next.job, next.addedAt);
      } catch (err) {
        sent = Promise.reject(err);
      }
      sent.then(next.resolve, next.reject).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** Refuses every waiting job with `reason` (the pool is closing). */
  drain(reason: () => Error): void {
    for (const w of this.queue.splice(0)) w.reject(reason());
  }
}
