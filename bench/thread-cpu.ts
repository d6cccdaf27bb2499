// The CPU time of the calling thread alone, for the service's split between its main thread (the
// event loop: peers, HTTP, the collection) and every other thread (the BLS workers, V8's garbage
// collection helpers, libuv's pool). process.cpuUsage() counts the whole process, and Node 20 has
// no per-thread counter, so this reads Linux's /proc/thread-self/stat.
import { readProc } from './proc.js';

/**
 * Clock ticks per second in /proc's CPU times: USER_HZ, which Linux fixes at 100 for user space
 * on every architecture Node runs on (sysconf(_SC_CLK_TCK)). One tick, 10 ms, is the resolution.
 */
const TICKS_PER_SECOND = 100;

/**
 * utime + stime of a /proc/…/stat line, in milliseconds. Fields are counted after the command
 * name's closing parenthesis (the name itself may hold spaces and parentheses): state is the
 * first, utime the 12th, stime the 13th.
 */
export function statCpuMs(stat: string): number {
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).trim().split(/\s+/);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (close < 0 || !Number.isInteger(utime) || !Number.isInteger(stime)) throw new Error(`not a /proc stat line: ${stat.slice(0, 80)}`);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** This thread's CPU time so far, ms; undefined where there is no /proc (not Linux). */
export function threadCpuMs(): number | undefined {
  const stat = readProc('/proc/thread-self/stat');
  return stat === undefined ? undefined : statCpuMs(stat);
}
