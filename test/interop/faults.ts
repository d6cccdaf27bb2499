// Faults on the real network: nodes frozen (SIGSTOP: the TCP connection stays open, nothing is
// read or answered), killed (SIGKILL: a crash, the kernel closes its connections), stopped
// (SIGTERM through tmpnet, waited for) and started again on the ports they had (`interop node`,
// interop/cmd/interop/node.go), and what warpgate's /ready and /status.json say meanwhile.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request, waitFor } from '../ops/helpers.js';
import { INTEROP_BIN, type NetworkDescription } from './paths.js';

/** The pid of a running node, from the process context tmpnet's node writes (`<networkDir>/<NodeID>/process.json`). */
export function nodePid(net: NetworkDescription, nodeId: string): number {
  const context = JSON.parse(readFileSync(`${net.networkDir}/${nodeId}/process.json`, 'utf8')) as { pid: number };
  return context.pid;
}

/** Running: a zombie (exited, not yet waited for by the process that started it) is not. */
function alive(pid: number): boolean {
  try {
    // The state follows the command name, which is in parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Freezes a node (SIGSTOP): its connections stay open and it answers nothing until thawed. */
export function freeze(net: NetworkDescription, nodeId: string): void {
  process.kill(nodePid(net, nodeId), 'SIGSTOP');
}

export function thaw(net: NetworkDescription, nodeId: string): void {
  process.kill(nodePid(net, nodeId), 'SIGCONT');
}

/** Kills a node with SIGKILL (a crash) and waits until its process is gone. */
export async function crash(net: NetworkDescription, nodeId: string): Promise<void> {
  const pid = nodePid(net, nodeId);
  process.kill(pid, 'SIGKILL');
  await waitFor(`${nodeId} (pid ${pid}) to exit`, () => (alive(pid) ? undefined : true), 30_000, 100);
}

export interface NodeAction {
  nodeId: string;
  uri: string;
  stakingAddress: string;
  seconds: number;
}

/** `interop node stop|start`: a graceful stop (SIGTERM, waited for), or a start on the node's old ports until it is healthy. */
export function nodeAction(net: NetworkDescription, action: 'stop' | 'start', nodeId: string): NodeAction {
  const run = spawnSync(INTEROP_BIN, ['node', action, '-network-dir', net.networkDir, '-node', nodeId], { encoding: 'utf8', timeout: 240_000 });
  if (run.status !== 0) throw new Error(`interop node ${action} ${nodeId} failed (${run.status}): ${run.stderr.trim().split('\n').slice(-5).join('\n')}`);
  return JSON.parse(run.stdout.trim()) as NodeAction;
}

/** Whether warpgate's p2p transport is connected to `nodeId` (the status page's validator rows). */
export async function warpgateConnectedTo(warpgateUrl: string, nodeIds: readonly string[]): Promise<Set<string>> {
  const connected = new Set<string>();
  let res;
  try {
    res = await request(`${warpgateUrl}/status.json`);
  } catch {
    // A kept-alive connection the server closed while this process was blocked (spawnSync): next poll.
    return connected;
  }
  for (const subnet of (res.body?.subnets ?? []) as { validators?: { nodeIds?: string[]; connected?: boolean; transport?: string }[] }[]) {
    for (const v of subnet.validators ?? []) {
      if (!v.connected) continue;
      for (const id of v.nodeIds ?? []) if (nodeIds.includes(id)) connected.add(id);
    }
  }
  return connected;
}
