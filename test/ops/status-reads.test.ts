// The status page reads nothing on anyone's behalf (issue 39, items 1 and 4). A service that serves
// one subnet (aggregation.allowedSigningSubnets) refuses requests naming other subnets, given or
// found by platform.validatedBy; after them, however often /status.json is viewed, the service
// makes no P-Chain call at all, shows only the subnet it serves, and holds no set of a refused
// subnet (so peer admission and the p2p dial list never learn its validators).
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import type { StatusReport } from '../../src/server/status/report.js';
import { idToString } from '../../src/warp/cb58.js';
import { buildGenesis } from '../../src/devnet/genesis/index.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { postJson, request, waitFor } from './helpers.js';

const REFRESH_MS = 250;
let devnet: Devnet;

beforeAll(async () => {
  // The devnet's subnet comes from its seed alone: the same genesis, built here first.
  const subnet = idToString(buildGenesis({ validators: 2, seed: 'warpgate', byzantine: 0, avalanchegoNodes: () => false }).subnetId);
  devnet = await startDevnet({
    validators: 2,
    transport: 'ws',
    port: 0,
    logger: pino({ level: 'silent' }),
    configOverrides: {
      'workers.threads': 1,
      'status.refreshMs': REFRESH_MS,
      'aggregation.allowedSigningSubnets': [subnet],
      // The refresh of readiness.subnets stays out of the counted window (its last call still
      // counts as recent: within two refresh intervals).
      'peerAdmission.setRefreshMs': 3_600_000,
    },
  });
  expect(idToString(devnet.genesis.subnetId)).toBe(subnet);
}, 120_000);

afterAll(async () => {
  await devnet?.close();
});

async function statusJson(): Promise<StatusReport> {
  const res = await request(`${devnet.info.url}/status.json`);
  expect(res.status).toBe(200);
  return res.body as StatusReport;
}

describe('GET /status.json after requests naming subnets the service does not serve', () => {
  it('costs no P-Chain call however often it is viewed, and shows only the subnet served', async () => {
    const url = `${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`;
    const { genesis } = devnet;
    const named = Array.from({ length: 20 }, () => randomBytes(32));
    for (const subnet of named) {
      const res = await postJson(url, { message: devnet.exampleMessageHex('not served'), signingSubnetId: idToString(subnet) });
      expect(res.status).toBe(403);
    }
    // No signingSubnetId: the C-Chain's subnet (the Primary Network) comes from platform.validatedBy.
    const fromCChain = bytesToHex(newUnsignedMessage(genesis.networkId, genesis.cChainId, encodeAddressedCall(genesis.managerAddress, new Uint8Array([1]))).bytes);
    expect((await postJson(url, { message: fromCChain })).status).toBe(403);
    await waitFor('the refusals on the status page', async () => ((await statusJson()).aggregations.total === named.length + 1 ? true : undefined));

    devnet.node.calls.length = 0;
    const views = 10;
    let report: StatusReport | undefined;
    for (let i = 0; i < views; i++) {
      report = await statusJson();
      // A fresh look each time (reports are shared within status.refreshMs).
      await new Promise((r) => setTimeout(r, REFRESH_MS + 20));
    }
    // Not one P-Chain call: the sets shown are those held, the node is judged by the service's own recent calls.
    expect(devnet.node.calls.map((c) => c.method)).toEqual([]);

    const served = idToString(genesis.subnetId);
    expect(report!.subnets.map((s) => s.subnetId)).toEqual([served]);
    expect(report!.subnets[0]).toMatchObject({ tracked: true, validatorCount: 2 });
  });
});
