// Jobs of one kind from every aggregation in progress, handed to the worker threads together.
// A job goes out at once while a thread is free; while all are busy, jobs wait here and the next
// free thread takes all of them (up to maxJobs) as one task. Handing a task to a worker costs
// ~0.1 ms of CPU on each side, as much as checking a signature, so under load (many
// aggregations at once) this turns many small tasks into a few large ones, the way Lodestar's
// BLS pool batches signature sets. No I/O of its own: `send` is the worker pool.
import { BlsJobError } from './errors.js';
import type { Outcome } from './messages.js';

/** A job waiting in the pool, with when it was added (for the wait-time figures). */
export interface Waiting<J, R> {
  job: J;
  addedAt: number;
  resolve(value: R): void;
  reject(err: unknown): void;
}

export class TaskBatcher<J, R> {
  private readonly queue: Waiting<J, R>[] = [];
  private inFlight = 0;

  constructor(
    /** Runs a batch in the worker pool; one outcome per job, in order. `addedAt`: each job's. */
    private readonly send: (jobs: J[], addedAt: number[]) => Promise<Outcome<R>[]>,
    /** Batches out at once: the number of worker threads. */
    private readonly maxInFlight: number,
    /** Jobs per batch at most, so one batch does not hold a thread for long. */
    private readonly maxJobs: number,
    /** Jobs waiting at most; past it a job is refused with `full()`, never queued. */
    private readonly maxQueued: number,
    private readonly full: () => Error,
    private readonly now: () => number = Date.now,
    /**
     * Whether a worker thread could start a batch now. With it, jobs wait here while work sent by
     * others keeps every thread busy, instead of going out one by one to wait in the pool's
     * queue; the pool calls pump() when a thread frees.
     */
    private readonly threadFree: () => boolean = () => true,
  ) {
    if (maxInFlight < 1 || maxJobs < 1) throw new RangeError('a batcher needs at least one batch in flight and one job per batch');
  }

  /** Jobs waiting for a free thread. */
  get queued(): number {
    return this.queue.length;
  }

  run(job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.queue.length >= this.maxQueued && this.inFlight >= this.maxInFlight) {
        reject(this.full());
        return;
      }
      this.queue.push({ job, addedAt: this.now(), resolve, reject });
      this.pump();
    });
  }

  /** Sends waiting jobs while batches may go out; the pool calls it whenever a task settles. */
  pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0 && this.threadFree()) {
      const batch = this.queue.splice(0, this.maxJobs);
      this.inFlight++;
      let sent: Promise<Outcome<R>[]>;
      try {
        sent = this.send(
          batch.map((q) => q.job),
          batch.map((q) => q.addedAt),
        );
      } catch (err) {
        sent = Promise.reject(err);
      }
      sent
        .then(
          (outcomes) => {
            batch.forEach((q, i) => {
              const outcome = outcomes[i];
              if (outcome?.code === 'success') q.resolve(outcome.result);
              else q.reject(new BlsJobError(outcome ? outcome.error : `the worker returned ${outcomes.length} outcomes for ${batch.length} jobs`));
            });
          },
          // The whole batch failed (pool closed or full, a thread died): every job sees why.
          (err: unknown) => batch.forEach((q) => q.reject(err)),
        )
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }
}
