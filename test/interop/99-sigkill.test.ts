// Runs last (vitest.interop.config.ts sorts files by name): the network program is killed with
// SIGKILL, so it cannot stop anything itself; its reaper must stop the nodes within 30 s.
import { existsSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { waitFor } from '../ops/helpers.js';
import { nodeProcessesOf } from './processes.js';

const net = inject('interopNetwork');
const pid = inject('interopNetworkPid');

describe('interop network killed with SIGKILL', () => {
  it('leaves no avalanchego process and no network directory behind', async () => {
    expect(nodeProcessesOf(net.networkDir)).toHaveLength(7);
    process.kill(pid, 'SIGKILL');
    await waitFor('the nodes to exit', () => (nodeProcessesOf(net.networkDir).length === 0 ? true : undefined), 30_000, 250);
    await waitFor('the network directory to be removed', () => (existsSync(net.networkDir) ? undefined : true), 30_000, 250);
  }, 90_000);
});
