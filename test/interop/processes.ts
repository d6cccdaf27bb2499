// The avalanchego processes of one network, found by their command line (tmpnet starts each
// with `--config-file <network dir>/<NodeID>/flags.json`).
import { readdirSync, readFileSync } from 'node:fs';

export function nodeProcessesOf(networkDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    if (cmdline.includes('avalanchego') && cmdline.includes(networkDir)) pids.push(Number(entry));
  }
  return pids;
}
