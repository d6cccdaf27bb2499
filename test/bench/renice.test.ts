// --validators-nice: the bench lowers the validators' processes' CPU priority on every thread
// they have (Linux keeps a nice value per thread), so the service gets the cores first.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HostProcess } from '../../bench/ipc.js';

/** Field 19 of /proc/<pid>/task/<tid>/stat (after the parenthesised name): the thread's nice value. */
function niceOf(pid: number, tid: string): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe.runIf(process.platform === 'linux')('HostProcess.renice', () => {
  it('sets the nice value of every thread of the host', async () => {
    const host = HostProcess.start('renice probe', 'bench/signer-host.ts');
    try {
      // The host is up (its IPC answers) and has its runtime's threads.
      await host.call({ type: 'measure-start' }, 30_000);
      const pid = host.child.pid!;
      const threads = readdirSync(`/proc/${pid}/task`);
      expect(threads.length).toBeGreaterThan(1);
      // 19, the lowest priority: raising a nice value needs no privilege, whatever this runner's is.
      expect(host.renice(19)).toBe(threads.length);
      const after = readdirSync(`/proc/${pid}/task`);
      expect(after.map((tid) => niceOf(pid, tid))).toEqual(after.map(() => 19));
    } finally {
      await host.stop();
    }
  });
});
