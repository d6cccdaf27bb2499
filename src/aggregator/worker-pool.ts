// The BLS worker pool: every signature check, aggregation and pairing runs here, off the event
// loop. One piscina pool, a capped queue (a full queue is an error the caller sees, never an
// unbounded backlog), tasks named after the functions in workers/bls-tasks.ts. Handshake proof
// checks take a lane of their own that yields to aggregation work (background-lane.ts).
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { packagePath } from '../util/ts-runtime.js';
import type { BackendName } from '../bls/types.js';
import { AggregationError } from './errors.js';
import { BackgroundLane } from './background-lane.js';
import { TaskBatcher, type JobOutcome } from './task-batcher.js';
import type {
  FindInvalidTask,
  FinalizeTask,
  FoldResult,
  FoldTask,
  PossessionTask,
  VerifyEachTask,
} from '../../workers/bls-tasks.js';

export interface WorkerPoolOptions {
  backend: BackendName;
  threads?: number;
  maxQueue?: number;
}

export class WorkerPoolBusyError extends Error {
  override readonly name = 'WorkerPoolBusyError';
  constructor() {
    super('the BLS worker queue is full');
  }
}

/** A task after close(): the service is shutting down (503, so the client retries elsewhere). */
export class WorkerPoolClosedError extends AggregationError {
  override readonly name = 'WorkerPoolClosedError';
  constructor() {
    super('the service is shutting down; retry shortly', 503);
  }
}

/** close() waits this long for running tasks before it terminates the threads. */
const CLOSE_DRAIN_MS = 5_000;

const DEFAULT_MAX_QUEUE = 4096;

/** Folds per task at most: ~64 × 0.1 ms keeps one task from holding a thread for long. */
const MAX_FOLDS_PER_TASK = 64;

export class BlsWorkerPool {
  private readonly piscina: Piscina;
  private readonly folds: TaskBatcher<FoldTask, FoldResult>;
  private readonly possessions: BackgroundLane<PossessionTask, boolean>;
  readonly backend: BackendName;
  private readonly threadCount: number;
  /** Tasks handed to piscina and not settled: running, or waiting in its queue. */
  private inFlight = 0;
  private closing: Promise<void> | undefined;

  constructor(opts: WorkerPoolOptions) {
    const threads = opts.threads ?? Math.max(1, availableParallelism());
    this.threadCount = threads;
    this.backend = opts.backend;
    this.piscina = new Piscina({
      filename: pathToFileURL(packagePath('workers/bls-entry.mjs')).href,
      workerData: { backend: opts.backend },
      minThreads: threads,
      maxThreads: threads,
      maxQueue: opts.maxQueue ?? DEFAULT_MAX_QUEUE,
      idleTimeout: 60_000,
      // Not 'sync' (piscina's default): it parks an idle worker in Atomics.wait without turning
      // its event loop, and @chainsafe/blst frees its native points in finalizers that run on
      // that loop, so every checked signature leaked (test/aggregator/workers.test.ts, 'memory').
      // 'disabled' costs ~10 µs more per task hand-off.
      atomics: 'disabled',
    });
    this.folds = new TaskBatcher(
      (jobs) => this.run<JobOutcome<FoldResult>[]>('foldMany', jobs),
      threads,
      MAX_FOLDS_PER_TASK,
      opts.maxQueue ?? DEFAULT_MAX_QUEUE,
      () => new WorkerPoolBusyError(),
    );
    // Proof checks run only on a thread nothing else wants, and leave one thread to aggregation
    // work whenever there are two or more.
    this.possessions = new BackgroundLane(
      (task) => this.run<boolean>('verifyPossession', task),
      () => this.inFlight < this.threadCount,
      Math.max(1, threads - 1),
      opts.maxQueue ?? DEFAULT_MAX_QUEUE,
      () => new WorkerPoolBusyError(),
    );
  }

  /** Tasks, batched folds and proof checks waiting for a thread (the worker-pool queue depth metric). */
  get queueSize(): number {
    return this.piscina.queueSize + this.folds.queued + this.possessions.queued;
  }

  get threads(): number {
    return this.piscina.threads.length;
  }

  private async run<T>(name: string, task: unknown): Promise<T> {
    if (this.closing) throw new WorkerPoolClosedError();
    this.inFlight++;
    try {
      return (await this.piscina.run(task, { name })) as T;
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) {
        throw new WorkerPoolBusyError();
      }
      throw err;
    } finally {
      this.inFlight--;
      // A thread may be idle now: proof checks waiting for one may go.
      this.possessions.pump();
    }
  }

  /** Batched with the folds of other aggregations while every thread is busy (task-batcher.ts). */
  fold(task: FoldTask): Promise<FoldResult> {
    return this.folds.run(task);
  }
  /** Sums running aggregates and checks every signature in them with one pairing. */
  finalize(task: FinalizeTask): Promise<{ valid: boolean; signature: Uint8Array }> {
    return this.run('finalize', task);
  }
  findInvalid(task: FindInvalidTask): Promise<number[]> {
    return this.run('findInvalid', task);
  }
  verifyEach(task: VerifyEachTask): Promise<boolean[]> {
    return this.run('verifyEach', task);
  }
  aggregate(sigs: Uint8Array[]): Promise<Uint8Array> {
    return this.run('aggregate', { sigs });
  }
  /** A handshake proof check: after every aggregation task, never ahead of one. */
  verifyPossession(task: PossessionTask): Promise<boolean> {
    if (this.closing) return Promise.reject(new WorkerPoolClosedError());
    return this.possessions.run(task);
  }

  /** Starts every thread now, so the first aggregation does not pay for module loading. */
  async warm(): Promise<void> {
    await Promise.all(Array.from({ length: this.threads }, () => this.run('ping', null)));
  }

  /**
   * Refuses new tasks, lets running ones finish (a thread terminated mid-task makes piscina
   * throw from its message handler), then terminates the threads.
   */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.possessions.drain(() => new WorkerPoolClosedError());
      const until = Date.now() + CLOSE_DRAIN_MS;
      while (this.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      await this.piscina.destroy();
    })());
  }
}
