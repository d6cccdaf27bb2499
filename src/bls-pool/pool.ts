// The BLS worker pool: every signature check, aggregation and pairing runs here, off the event
// loop, in the manner of Lodestar's BLS thread pool. One piscina pool; jobs typed by kind
// (messages.ts) and run by worker.ts; folds from concurrent aggregations batched into shared
// tasks while every thread is busy (task-batcher.ts); handshake proof checks in a lane of their
// own that yields to aggregation work (background-lane.ts); a capped queue (a full queue is an
// OverloadedError the caller sees, never an unbounded backlog). Every job reports when it was
// added, started and finished, for wait, run and batch-size figures.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { BackendName } from '../bls/types.js';
import { OverloadedError } from '../util/overloaded.js';
import { tsWorker } from '../util/ts-runtime.js';
import { BackgroundLane } from './background-lane.js';
import { BlsJobError, BlsPoolClosedError } from './errors.js';
import {
  packBatch,
  preciseNow,
  type PackedBatch,
  type PackedFoldJob,
  type BlsWorkerData,
  type FinalizeJob,
  type FinalizeResult,
  type FoldAndCheckResult,
  type FoldJob,
  type FoldResult,
  type JobKind,
  type JobOf,
  type Outcome,
  type PossessionJob,
  type ResultOf,
  type SameMessageBatch,
  type SignatureBatch,
  type Task,
  type TaskResult,
} from './messages.js';
import { TaskBatcher } from './task-batcher.js';
import type { BlsVerifier, FinalCheck, FinalCheckJob, FoldAndCheckRequest, SubsetCheckJob } from './verifier.js';

/** One job's way through the pool (preciseNow milliseconds). */
export interface JobTiming {
  kind: JobKind;
  /** Jobs in the task it ran in (folds of several aggregations share one). */
  batchSize: number;
  addedAt: number;
  startedAt: number;
  finishedAt: number;
}

/** One task a worker thread ran: jobs of one kind, from one or several aggregations. */
export interface TaskTiming {
  kind: JobKind;
  jobs: number;
  startedAt: number;
  finishedAt: number;
}

interface BlsPoolEvents {
  /** Each job once its task is done, failed jobs included. */
  onJob?(timing: JobTiming): void;
  /** Each task once it is done (how many jobs shared it: the batching the metrics show). */
  onTask?(timing: TaskTiming): void;
}

interface BlsPoolOptions {
  backend: BackendName;
  threads?: number;
  maxQueue?: number;
  events?: BlsPoolEvents;
}

/** close() waits this long for running tasks before it terminates the threads. */
const CLOSE_DRAIN_MS = 5_000;

const DEFAULT_MAX_QUEUE = 4096;

/** Folds per task at most: ~64 × 0.1 ms keeps one task from holding a thread for long. */
const MAX_FOLDS_PER_TASK = 64;

/**
 * Fold-and-checks per task at most: 16 checked together take ~5 ms, ~0.6 ms of CPU each against
 * ~1.15 ms alone (bench/bls-backends.ts, "final checks … together"); more would gain little per
 * check and hold the first one's answer longer.
 */
const MAX_CHECKS_PER_TASK = 16;

function queueFull(): OverloadedError {
  return new OverloadedError('the BLS worker queue is full', 1, 'the service is overloaded; retry shortly');
}

function resultOf<R>(outcome: Outcome<R> | undefined): R {
  if (outcome?.code === 'success') return outcome.result;
  throw new BlsJobError(outcome ? outcome.error : 'the worker returned no outcome');
}

const NO_SIGNATURES: SignatureBatch = { sigs: [], pks: [] };

/**
 * The side of a subset of `all` that decompresses fewer signatures, as foldAndCheck takes it: the
 * subset's own signatures, or the rest, to take away from the sums.
 */
function smallerSide(all: SignatureBatch, positions: readonly number[]): NonNullable<FoldAndCheckRequest['subset']> {
  const inSubset = new Set(positions);
  const pick = (keep: (i: number) => boolean): SignatureBatch => ({ sigs: all.sigs.filter((_, i) => keep(i)), pks: all.pks.filter((_, i) => keep(i)) });
  return all.sigs.length - inSubset.size < inSubset.size ? { leftOut: pick((i) => !inSubset.has(i)) } : { kept: pick((i) => inSubset.has(i)) };
}

/** The check a fold-and-check made of signatures already accepted (so none can be rejected). */
function checkOf(r: FoldAndCheckResult): FinalizeResult {
  if (!r.check) throw new BlsJobError(r.partial === null ? 'finalize: no signatures to check' : 'a check of accepted signatures: a signature no longer decodes');
  return { valid: r.check.valid, signature: r.check.signature };
}

function packFold({ base, ...batch }: FoldJob): PackedFoldJob {
  return base ? { ...packBatch(batch), base } : packBatch(batch);
}

function isPacked(job: unknown): job is PackedBatch {
  return typeof job === 'object' && job !== null && 'count' in job && (job as PackedBatch).sigs instanceof Uint8Array;
}

export class BlsPool implements BlsVerifier {
  private readonly piscina: Piscina;
  private readonly folds: TaskBatcher<PackedFoldJob, FoldResult>;
  private readonly checks: TaskBatcher<JobOf<'foldAndCheck'>, FoldAndCheckResult>;
  private readonly possessions: BackgroundLane<PossessionJob, boolean>;
  /** Worker threads (for reports; callers of BlsVerifier ask suggestedParallelism()). */
  readonly threads: number;
  /** Tasks handed to piscina and not settled: running, or waiting in its queue. */
  private inFlight = 0;
  private closing: Promise<void> | undefined;

  constructor(private readonly opts: BlsPoolOptions) {
    const threads = opts.threads ?? Math.max(1, availableParallelism());
    const maxQueue = opts.maxQueue ?? DEFAULT_MAX_QUEUE;
    this.threads = threads;
    const entry = tsWorker<BlsWorkerData>(new URL('./worker.ts', import.meta.url), { backend: opts.backend });
    this.piscina = new Piscina({
      filename: entry.filename,
      workerData: entry.workerData,
      minThreads: threads,
      maxThreads: threads,
      maxQueue,
      idleTimeout: 60_000,
      // Not 'sync' (piscina's default): it parks an idle worker in Atomics.wait without turning
      // its event loop, and @chainsafe/blst frees its native points in finalizers that run on
      // that loop, so every checked signature leaked (test/bls-pool/pool.test.ts, 'memory').
      // 'disabled' costs ~10 µs more per task hand-off.
      atomics: 'disabled',
    });
    this.folds = new TaskBatcher((jobs, addedAt) => this.runTask('fold', jobs, addedAt), threads, MAX_FOLDS_PER_TASK, maxQueue, queueFull, preciseNow);
    // A check goes out the moment a thread is free, alone or with every check that waited for one:
    // concurrent aggregations' final checks then share a final exponentiation (worker.ts,
    // foldAndCheckAll), and none waits in piscina's queue behind work that came after it.
    this.checks = new TaskBatcher(
      (jobs, addedAt) => this.runTask('foldAndCheck', jobs, addedAt),
      threads,
      MAX_CHECKS_PER_TASK,
      maxQueue,
      queueFull,
      preciseNow,
      () => this.inFlight < this.threads,
    );
    // Proof checks run only on a thread nothing else wants, and leave one thread to aggregation
    // work whenever there are two or more.
    this.possessions = new BackgroundLane(
      (job, addedAt) => this.runOne('verifyPossession', job, addedAt),
      () => this.inFlight < this.threads,
      Math.max(1, threads - 1),
      maxQueue,
      queueFull,
      preciseNow,
    );
  }

  /** Jobs waiting for a thread: in piscina's queue, batched folds and proof checks (the worker-queue gauge). */
  get backlog(): number {
    return this.piscina.queueSize + this.folds.queued + this.checks.queued + this.possessions.queued;
  }

  suggestedParallelism(): number {
    return this.backlog > 0 ? 1 : this.threads;
  }

  /** Batched with the folds of other aggregations while every thread is busy (task-batcher.ts). */
  fold(job: FoldJob): Promise<FoldResult> {
    return this.folds.run(packFold(job));
  }

  /** A fold-and-check of nothing new: the parts' sum checked, with the checks waiting beside it. */
  async finalize(job: FinalizeJob): Promise<FinalizeResult> {
    return checkOf(await this.foldAndCheck({ ...NO_SIGNATURES, base: job.parts, message: job.message }));
  }

  findInvalid(job: SameMessageBatch): Promise<number[]> {
    return this.runOne('findInvalid', job);
  }

  async finalCheck(job: FinalCheckJob): Promise<FinalCheck> {
    const checked = await this.finalize({ message: job.message, parts: job.parts });
    if (checked.valid) return { valid: true, signature: checked.signature };
    return this.bisect(job.message, job.signatures());
  }

  async subsetCheck(job: SubsetCheckJob): Promise<FinalCheck> {
    const all = job.signatures();
    const subset = smallerSide(all, job.subset);
    const checked = checkOf(await this.foldAndCheck({ ...NO_SIGNATURES, base: job.parts, message: job.message, subset }));
    if (checked.valid) return { valid: true, signature: checked.signature };
    return this.bisect(job.message, all);
  }

  /**
   * Never batched with folds (its check would hold theirs up), but with the fold-and-checks of other
   * aggregations that waited for a thread at the same time: their checks are made together.
   */
  foldAndCheck(job: FoldAndCheckRequest): Promise<FoldAndCheckResult> {
    const { subset, message, ...fold } = job;
    const packed = { ...packFold(fold), message };
    if (!subset) return this.checks.run(packed);
    const terms = 'kept' in subset ? { add: subset.kept, remove: NO_SIGNATURES, fromResult: false } : { add: NO_SIGNATURES, remove: subset.leftOut, fromResult: true };
    return this.checks.run({ ...packed, subset: terms });
  }

  /** After a failed check of these signatures' aggregate: the bad ones, and the rest folded again. */
  private async bisect(message: Uint8Array, { sigs, pks }: SignatureBatch): Promise<FinalCheck> {
    const invalid = await this.findInvalid({ message, sigs, pks });
    if (invalid.length === 0) throw new Error('the aggregate signature check failed but bisection found no invalid signature');
    const bad = new Set(invalid);
    const keep = (_: Uint8Array, i: number): boolean => !bad.has(i);
    const good = sigs.filter(keep);
    const rest = good.length > 0 ? (await this.fold({ sigs: good, pks: pks.filter(keep) })).partial : null;
    return { valid: false, invalid, rest };
  }

  verifyEach(job: SameMessageBatch): Promise<boolean[]> {
    return this.runOne('verifyEach', job);
  }

  aggregate(sigs: Uint8Array[]): Promise<Uint8Array> {
    return this.runOne('aggregate', sigs);
  }

  /** After every aggregation job, never ahead of one (background-lane.ts). */
  verifyPossession(job: PossessionJob): Promise<boolean> {
    if (this.closing) return Promise.reject(new BlsPoolClosedError());
    return this.possessions.run(job);
  }

  /** Starts every thread now, so the first aggregation does not pay for module loading. */
  async warm(): Promise<void> {
    await Promise.all(Array.from({ length: this.threads }, () => this.runOne('ping', null)));
  }

  /**
   * Refuses new jobs, lets running ones finish (a thread terminated mid-task makes piscina
   * throw from its message handler), then terminates the threads.
   */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.possessions.drain(() => new BlsPoolClosedError());
      const until = Date.now() + CLOSE_DRAIN_MS;
      while (this.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      await this.piscina.destroy();
    })());
  }

  private async runOne<K extends JobKind>(kind: K, job: JobOf<K>, addedAt = preciseNow()): Promise<ResultOf<K>> {
    const [outcome] = await this.runTask(kind, [job], [addedAt]);
    return resultOf(outcome);
  }

  private async runTask<K extends JobKind>(kind: K, jobs: JobOf<K>[], addedAt: number[]): Promise<Outcome<ResultOf<K>>[]> {
    if (this.closing) throw new BlsPoolClosedError();
    this.inFlight++;
    try {
      const task: Task<K> = { kind, jobs };
      // Packed batches were made for this task alone: moved to the worker, not copied.
      const transferList = jobs.flatMap((job) => (isPacked(job) ? [job.sigs.buffer as ArrayBuffer, job.pks.buffer as ArrayBuffer] : []));
      // piscina hands back what worker.ts's runTask returned for this task.
      const done = (await this.piscina.run(task, transferList.length > 0 ? { transferList } : undefined)) as TaskResult<K>;
      this.report(kind, addedAt, done);
      return done.outcomes;
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) throw queueFull();
      throw err;
    } finally {
      this.inFlight--;
      // A thread may be idle now: checks waiting for one go first, then proof checks.
      this.checks.pump();
      this.possessions.pump();
    }
  }

  private report(kind: JobKind, addedAt: number[], done: TaskResult<JobKind>): void {
    this.opts.events?.onTask?.({ kind, jobs: addedAt.length, startedAt: done.startedAt, finishedAt: done.finishedAt });
    const onJob = this.opts.events?.onJob;
    if (!onJob) return;
    for (const at of addedAt) onJob({ kind, batchSize: addedAt.length, addedAt: at, startedAt: done.startedAt, finishedAt: done.finishedAt });
  }
}
