// Child-process entry running the service under test, alone in its process so that its CPU time
// per aggregation can be measured (process.cpuUsage covers the main thread and the BLS workers).
// Around the timed runs it also records event-loop delay, the deepest BLS worker queue, peak
// memory and, when asked, a V8 CPU profile of exactly that interval.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import type { Counter } from 'prom-client';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { pino } from 'pino';
import type { VerificationStrategy } from '../src/aggregator/verification.js';
import { loadConfig } from '../src/config/config.js';
import { startService, type Service } from '../src/service/start.js';
import { floor } from './floor.js';
import { serveHost } from './ipc.js';
import { perSignatureVerify } from './per-signature-verify.js';
import { startPerfRecord, type PerfRecording } from './perf-record.js';
import type { Strategy } from './strategies.js';
import { threadCpuMs } from './thread-cpu.js';
import { Timeline } from './timeline.js';

export interface StartRequest {
  type: 'start';
  overrides: Record<string, unknown>;
  strategy: Strategy;
}

export interface MeasureStartRequest {
  type: 'measure-start';
  /** Write a .cpuprofile of the measured interval here. */
  cpuProfileFile?: string;
  /** Record the measured interval with Linux perf into this file (perf-record.ts). */
  perfDataFile?: string;
}

export interface ServiceMeasurement {
  cpuUserMs: number;
  cpuSystemMs: number;
  /** The main thread's share of it (undefined without Linux's /proc: thread-cpu.ts). */
  mainThreadCpuMs?: number;
  wallMs: number;
  eventLoopDelay: { p50Ms: number; p99Ms: number; maxMs: number };
  maxWorkerQueue: number;
  peakRssBytes: number;
  peakHeapUsedBytes: number;
  /** Resident memory when the timed runs started and when they ended. */
  rssAtStartBytes: number;
  rssAtEndBytes: number;
  /** Resident memory over the measured interval: [ms since measure-start, bytes], at most ~100 points. */
  rssTimeline: [number, number][];
  /** Peer answers during the measured interval by result (valid, invalid, refused, timeout, error). */
  responses: Record<string, number>;
  /** Signature requests to validators during the measured interval by outcome (signature, refused, timeout, cancelled, failed), both transports added up. */
  requests: Record<string, number>;
  /**
   * Over the measured interval: signers in the signed messages, signatures ready at the final
   * checks (the signers and those the fewest signers left out), the fewest signers' own checks
   * (count, seconds), and the final checks with the worker tasks they ran in.
   */
  totals: MetricTotals;
  /**
   * Each successful aggregation's timing by the service's own clock, ms: `ms` from the request
   * reaching the aggregator to its result, `signersInMs` from the first peer request until the
   * signers' weight had arrived (the aggregator's idealMs). Their difference is the service's own
   * time: before the first request, and after the signatures were in (the checks, the decision).
   */
  aggregations: { ms: number; signersInMs: number }[];
  cpuProfileFile?: string;
  perfDataFile?: string;
}

/** The verification each strategy injects into the service (warpgate: its own; icmServices runs no warpgate service). */
const VERIFICATION: Record<Strategy, VerificationStrategy | undefined> = { warpgate: undefined, warpgateAllSigners: undefined, perSignatureVerify, floor, icmServices: undefined };

/** How often the worker queue is sampled while measuring (a cheap read)... */
const SAMPLE_MS = 10;
/** ...and memory, every this many samples (process.memoryUsage() reads /proc: not free). */
const MEMORY_EVERY = 25;

let service: Service | undefined;
let measuring:
  | {
      cpu: NodeJS.CpuUsage;
      mainThreadCpu: number | undefined;
      startedAt: number;
      loop: IntervalHistogram;
      sampler: NodeJS.Timeout;
      responses: Record<string, number>;
      requests: Record<string, number>;
      totals: MetricTotals;
      aggregations: { ms: number; signersInMs: number }[];
      rssAtStart: number;
      profile?: { session: Session; file: string };
      perf?: PerfRecording;
    }
  | undefined;
let maxQueue = 0;
let peakRss = 0;
let peakHeap = 0;

interface MetricTotals extends Record<string, number> {
  inMessages: number;
  ready: number;
  subsetChecks: number;
  subsetCheckSeconds: number;
  /** Fold-and-checks (every final check), and the worker tasks they ran in. */
  checkJobs: number;
  checkTasks: number;
}

/** The metrics' running totals (service/metrics.ts): the measured interval is their difference. */
async function metricTotals(s: Service): Promise<MetricTotals> {
  const value = async (metric: { get(): Promise<{ values: { metricName?: string; labels: Record<string, unknown>; value: number }[] }> }, name: string, kind?: string): Promise<number> =>
    (await metric.get()).values.find((v) => v.metricName === name && (kind === undefined || v.labels.kind === kind))?.value ?? 0;
  const inMessages = await value(s.metrics.messageSigners, 'warpgate_message_signers_sum');
  const leftOut = (await s.metrics.signersLeftOut.get()).values[0]?.value ?? 0;
  return {
    inMessages,
    ready: inMessages + leftOut,
    subsetChecks: await value(s.metrics.subsetCheckSeconds, 'warpgate_subset_check_seconds_count'),
    subsetCheckSeconds: await value(s.metrics.subsetCheckSeconds, 'warpgate_subset_check_seconds_sum'),
    checkJobs: await value(s.metrics.blsTaskJobs, 'warpgate_bls_task_jobs_sum', 'foldAndCheck'),
    checkTasks: await value(s.metrics.blsTaskJobs, 'warpgate_bls_task_jobs_count', 'foldAndCheck'),
  };
}

/** A counter's values added up by one of its labels (the others summed over). */
async function countsBy(counter: Counter<string>, label: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const v of (await counter.get()).values) {
    const key = String(v.labels[label]);
    counts[key] = (counts[key] ?? 0) + v.value;
  }
  return counts;
}

/** Peer answers by result, and signature requests by outcome over both transports. */
const responseCounts = (s: Service) => countsBy(s.metrics.signatureResponses, 'result');
const requestCounts = (s: Service) => countsBy(s.metrics.peerRequests, 'outcome');

/** `after` − `before`, key by key (a counter's labels appear once first counted). */
function countsSince<T extends Record<string, number>>(before: T, after: T): T {
  const since: Record<string, number> = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) since[k] = (after[k] ?? 0) - (before[k] ?? 0);
  return since as T;
}

let samples = 0;
const MAX_TIMELINE_POINTS = 100;
let rssTimeline = new Timeline(MAX_TIMELINE_POINTS);
let timelineStartedAt = 0;

function sample(memory = samples++ % MEMORY_EVERY === 0): void {
  if (service) maxQueue = Math.max(maxQueue, service.pool.backlog);
  if (!memory) return;
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
  rssTimeline.offer(Math.round(performance.now() - timelineStartedAt), m.rss);
}

serveHost(
  {
    start: async (req: StartRequest) => {
      if (service) throw new Error('the service is already running');
      const config = loadConfig({ env: {}, overrides: req.overrides });
      // Warnings and errors only: one log line per request would be the logger's cost, not ours.
      const logger = pino({ level: 'warn', base: { service: 'warpgate', bench: req.strategy } }, pino.destination(2));
      service = await startService(config, {
        logger,
        verification: VERIFICATION[req.strategy],
        events: {
          onAggregation: (e) => {
            if (measuring && e.outcome === 'success' && e.idealMs !== undefined) measuring.aggregations.push({ ms: e.ms, signersInMs: e.idealMs });
          },
        },
      });
      return { url: service.url };
    },
    // Validators connected either way: signer peers that dialled in, avalanchego nodes the service dialled.
    connected: async () => (service ? service.peers.connectedKeys().length + (service.p2p?.connectedCount() ?? 0) : 0),
    'measure-start': async (req: MeasureStartRequest) => {
      if (!service || measuring) throw new Error('measure-start needs a running service and no measurement under way');
      maxQueue = 0;
      peakRss = 0;
      peakHeap = 0;
      rssTimeline = new Timeline(MAX_TIMELINE_POINTS);
      timelineStartedAt = performance.now();
      sample(true);
      const loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      let profile: { session: Session; file: string } | undefined;
      if (req.cpuProfileFile) {
        const session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
        profile = { session, file: req.cpuProfileFile };
      }
      const perf = req.perfDataFile ? await startPerfRecord(process.pid, req.perfDataFile) : undefined;
      const responses = await responseCounts(service);
      const requests = await requestCounts(service);
      const totals = await metricTotals(service);
      const sampler = setInterval(() => sample(), SAMPLE_MS);
      measuring = { cpu: process.cpuUsage(), mainThreadCpu: threadCpuMs(), startedAt: performance.now(), loop, sampler, responses, requests, totals, aggregations: [], rssAtStart: process.memoryUsage.rss(), profile, perf };
      return null;
    },
    'measure-stop': async (): Promise<ServiceMeasurement> => {
      const m = measuring;
      if (!m) throw new Error('measure-stop before measure-start');
      measuring = undefined;
      const cpu = process.cpuUsage(m.cpu);
      const mainThreadCpu = threadCpuMs();
      const wallMs = performance.now() - m.startedAt;
      await m.perf?.stop();
      clearInterval(m.sampler);
      const responses = countsSince(m.responses, await responseCounts(service!));
      const requests = countsSince(m.requests, await requestCounts(service!));
      const totals = countsSince(m.totals, await metricTotals(service!));
      sample();
      m.loop.disable();
      let cpuProfileFile: string | undefined;
      if (m.profile) {
        const { profile } = (await m.profile.session.post('Profiler.stop')) as { profile: unknown };
        m.profile.session.disconnect();
        await writeFile(m.profile.file, JSON.stringify(profile));
        cpuProfileFile = m.profile.file;
      }
      const ms = (ns: number): number => ns / 1e6;
      return {
        cpuUserMs: cpu.user / 1000,
        cpuSystemMs: cpu.system / 1000,
        ...(mainThreadCpu !== undefined && m.mainThreadCpu !== undefined ? { mainThreadCpuMs: mainThreadCpu - m.mainThreadCpu } : {}),
        wallMs,
        eventLoopDelay: { p50Ms: ms(m.loop.percentile(50)), p99Ms: ms(m.loop.percentile(99)), maxMs: ms(m.loop.max) },
        maxWorkerQueue: maxQueue,
        peakRssBytes: peakRss,
        peakHeapUsedBytes: peakHeap,
        rssAtStartBytes: m.rssAtStart,
        rssAtEndBytes: process.memoryUsage.rss(),
        rssTimeline: rssTimeline.read(),
        responses,
        requests,
        totals,
        aggregations: m.aggregations,
        ...(cpuProfileFile ? { cpuProfileFile } : {}),
        ...(m.perf ? { perfDataFile: m.perf.file } : {}),
      };
    },
  },
  async () => {
    await service?.close();
  },
);
