// Readiness.checkHeld, the status page's readiness: it judges the sets the service holds (reading
// none, a subnet without one is a reason) and the node by the service's own recent calls to it,
// asking the node itself (platform.getHeight) only when none is recent.
import { describe, expect, it } from 'vitest';
import type { ValidatorSets } from '../../src/aggregator/aggregator.js';
import { Readiness } from '../../src/service/readiness.js';
import type { CanonicalSet } from '../../src/validators/canonical-set.js';

const SUBNET = new Uint8Array(32).fill(4);
const SET: CanonicalSet = { validators: [{ publicKeyHex: 'k0', weight: 10n, nodeIds: ['NodeID-0'], publicKey: null as never }], totalWeight: 10n, indexOf: () => undefined };
const neverRead: ValidatorSets = {
  get: () => Promise.reject(new Error('a validator set was read')),
  signingSubnetFor: () => Promise.reject(new Error('unused')),
  proposedHeight: () => Promise.reject(new Error('unused')),
};

function readiness(opts: { held?: CanonicalSet; nodeFreshMs?: number }) {
  const probes = { count: 0 };
  const r = new Readiness({
    node: { getHeight: async () => void probes.count++ },
    sets: neverRead,
    peers: { isConnected: () => true },
    subnets: [{ name: 'the-subnet', id: SUBNET }],
    quorumPercentage: 67,
    held: () => opts.held,
    nodeFreshMs: opts.nodeFreshMs ?? 60_000,
  });
  return { r, probes };
}

describe('Readiness.checkHeld', () => {
  it('reads no set, and asks the node only when the service has not called it recently', async () => {
    const { r, probes } = readiness({ held: SET });
    expect(await r.checkHeld()).toMatchObject({ ready: true, reasons: [] });
    expect(probes.count).toBe(1);
    r.nodeCall({ method: 'platform.getCurrentValidators', ms: 3, attempts: 1 });
    for (let i = 0; i < 5; i++) expect((await r.checkHeld()).ready).toBe(true);
    expect(probes.count).toBe(1);
    // A caller's deadline says nothing of the node.
    r.nodeCall({ method: 'platform.getHeight', ms: 3, attempts: 1, error: 'aborted' });
    expect((await r.checkHeld()).ready).toBe(true);
    r.nodeCall({ method: 'platform.getHeight', ms: 3, attempts: 2, error: 'unreachable' });
    expect(await r.checkHeld()).toMatchObject({ ready: false, reasons: [expect.stringMatching(/^node does not answer: unreachable on platform.getHeight, \d+ s ago$/)] });
    expect(probes.count).toBe(1);
  });

  it('asks the node once the last call is older than nodeFreshMs; a subnet without a held set is a reason', async () => {
    const { r, probes } = readiness({ nodeFreshMs: 1 });
    r.nodeCall({ method: 'platform.getHeight', ms: 3, attempts: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await r.checkHeld()).toEqual({ ready: false, reasons: ['subnet the-subnet: its validator set has not been read yet'], subnets: [] });
    expect(probes.count).toBe(1);
  });
});
