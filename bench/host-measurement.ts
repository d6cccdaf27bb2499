// What a validator host process (signer-host.ts, node-host.ts) measures of itself over the timed
// runs: its CPU time and its event loop's delay, between the harness's measure-start and
// measure-stop requests.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** What a host measured between measure-start and measure-stop. */
export interface HostMeasurement {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  cpuMs: number;
}

/** The measure-start and measure-stop handlers of one host process. */
export function measurementHandlers(): { 'measure-start': () => Promise<null>; 'measure-stop': () => Promise<HostMeasurement> } {
  let loop: IntervalHistogram | undefined;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  return {
    'measure-start': async () => {
      loop?.disable();
      loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      cpuAtStart = process.cpuUsage();
      return null;
    },
    'measure-stop': async () => {
      if (!loop || !cpuAtStart) throw new Error('measure-stop before measure-start');
      const cpu = process.cpuUsage(cpuAtStart);
      loop.disable();
      const ms = (ns: number): number => ns / 1e6;
      return { p50Ms: ms(loop.percentile(50)), p99Ms: ms(loop.percentile(99)), maxMs: ms(loop.max), cpuMs: (cpu.user + cpu.system) / 1000 };
    },
  };
}
