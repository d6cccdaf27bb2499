// The relayer (issue 37) under the faults a deployment meets, on the real network: a config
// mistake stops the start with exit 2 and a `config: …` line, and an RPC that does not answer
// does not (the relayer keeps retrying, `/ready` says why); a key with no funds gives a clear
// error and loses nothing, every message going out once the key is funded; a WebSocket cut and
// refused for a while leaves a gap that is caught up; the destination's node stopped for a
// minute, then started: the deliveries resume. Each relayer here runs on a copy of the
// network's relayerConfig with its own store (relayer-harness.ts). "Once" is counted as
// 60-relayer counts it: the messenger's ReceiveCrossChainMessage events on the destination and
// every transaction the delivering key sent to the messenger there, reverted ones included.
// Whatever this file stops it starts again: the other files share the network.
import { writeFileSync } from 'node:fs';
import { stringToHex, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { cb58Encode } from '../../src/warp/index.js';
import { request, startWarpgate, cleanEnv, waitFor } from '../ops/helpers.js';
import { nodeAction } from './faults.js';
import type { FundedKey, NetworkDescription } from './paths.js';
import { allDelivered, deliveredCount, expectOneDeliveryEach } from './relayer-checks.js';
import {
  closedPort,
  cuttableProxy,
  fund,
  heads,
  readiness,
  relayerConfigCopy,
  removeConfigCopies,
  startRelayer,
  type Relayer,
} from './relayer-harness.js';
import { sendBurst, sendTeleporterMessage, teleporterChains, type SentMessage, type TeleporterChain } from './teleporter.js';

const net = inject('interopNetwork');
const { cChain, l1 } = teleporterChains(net);
const [relayerKey, sender, otherSender, funder] = net.funded as [FundedKey, FundedKey, FundedKey, FundedKey];
const BURST = 10;
const DELIVERY_DEADLINE_MS = 10 * 60_000;
const OUTAGE_MS = 60_000;

/** The node whose API `url` is on (the node a chain's rpcUrl reaches). */
function nodeServing(network: NetworkDescription, url: string): string {
  const { host } = new URL(url);
  const node = [...network.nodes, ...network.l1.validators].find((n) => new URL(n.uri).host === host);
  if (!node) throw new Error(`no node of the network serves ${url}`);
  return node.nodeId;
}

async function withRelayer<T>(relayer: Relayer, body: (relayer: Relayer) => Promise<T>): Promise<T> {
  try {
    return await body(relayer);
  } finally {
    await relayer.proc.kill();
  }
}

/** A config mistake: the start ends with exit 2, and stderr says what is wrong in a `config: …` line. */
async function expectConfigExit(configPath: string, mention: RegExp): Promise<string[]> {
  const proc = startWarpgate(['relay', '--config', configPath], cleanEnv());
  try {
    const { code } = await proc.exited(120_000);
    const lines = proc.stderr().split('\n').filter((l) => l.startsWith('config: '));
    expect(code, proc.stderr()).toBe(2);
    expect(lines.some((l) => mention.test(l)), proc.stderr()).toBe(true);
    return lines;
  } finally {
    await proc.kill();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// Every relayer is killed by withRelayer before its test ends: their directories can go.
afterAll(removeConfigCopies);

describe('warpgate relay under faults on the interop network', () => {
  it('a route naming a chain not in relayer.chains, or a key file that is not there: exit 2 with a config: line', async () => {
    // A well-formed blockchain ID that no chain of the config has.
    const unknown = cb58Encode(new Uint8Array(32).fill(7));
    const route = relayerConfigCopy(net, (config) => {
      config.relayer.routes.push({ source: net.cChain.blockchainId, destination: unknown });
    });
    await expectConfigExit(route.path, new RegExp(`relayer\\.routes.*${unknown}.*not a chain of relayer\\.chains`));

    const key = relayerConfigCopy(net, (config, dir) => {
      config.relayer.keys = [{ file: `${dir}/no-such-key` }];
    });
    await expectConfigExit(key.path, /relayer\.keys.*no-such-key/);
  }, 5 * 60_000);

  it('a chain whose RPC does not answer: the relayer keeps retrying with the reason in /ready (503) and does not exit', async () => {
    const port = await closedPort();
    const { path } = relayerConfigCopy(net, (config) => {
      const chain = config.relayer.chains.find((c) => c.blockchainId === net.l1.blockchainId)!;
      chain.rpcUrl = `http://127.0.0.1:${port}/ext/bc/${net.l1.blockchainId}/rpc`;
      chain.wsUrl = `ws://127.0.0.1:${port}/ext/bc/${net.l1.blockchainId}/ws`;
    });
    await withRelayer(await startRelayer(path, { waitReady: false }), async (relayer) => {
      const notReady = await waitFor('a relayer reason in /ready', async () => {
        const r = await readiness(relayer.url);
        return r.status === 503 && JSON.stringify(r.body).includes('relayer:') ? r : undefined;
      }, 120_000, 500);
      const reasons = JSON.stringify(notReady.body);
      expect(reasons, reasons).toMatch(new RegExp(`relayer:[^"]*(${net.l1.blockchainId}|127\\.0\\.0\\.1:${port})`));
      // Still there and still saying why a while later: retrying, not exited.
      await sleep(20_000);
      expect(relayer.proc.child.exitCode, relayer.proc.stderr()).toBeNull();
      const later = await readiness(relayer.url);
      expect(later.status).toBe(503);
      expect(JSON.stringify(later.body)).toContain('relayer:');
    });
  }, 5 * 60_000);

  it('an unfunded key: a clear error and nothing lost; once funded on both chains every message is delivered, once', async () => {
    const privateKey = generatePrivateKey();
    const address = privateKeyToAccount(privateKey).address.toLowerCase() as Address;
    const { path } = relayerConfigCopy(net, (config, dir) => {
      writeFileSync(`${dir}/key`, `${privateKey}\n`, { mode: 0o600 });
      config.relayer.keys = [{ file: `${dir}/key` }];
    });
    await withRelayer(await startRelayer(path), async (relayer) => {
      const from = await heads(cChain, l1);
      const toL1 = await sendTeleporterMessage(net, cChain, sender, { destination: l1, message: stringToHex(`unfunded to the L1 ${Date.now()}`) });
      const toC = await sendTeleporterMessage(net, l1, otherSender, { destination: cChain, message: stringToHex(`unfunded to the C-Chain ${Date.now()}`) });

      // The error says what is wrong, per message, per key: no funds.
      for (const sent of [toL1, toC]) {
        const state = await waitFor(`a reason for ${sent.messageId}`, async () => {
          const res = await request(`${relayer.url}/relay/messages/${sent.messageId}`);
          // Other reasons may come first (a validator that has not seen the block yet): wait for the key's.
          return res.status === 200 && String(res.body.reason ?? '').toLowerCase().includes(address) ? (res.body as Record<string, any>) : undefined;
        }, 3 * 60_000, 1000);
        // e.g. "key 0x… holds 0 wei, less than the … wei this delivery may cost"
        expect(state.reason).toMatch(/holds 0 wei|insufficient funds/);
        expect(['seen', 'signed', 'parked']).toContain(state.status);
      }
      const metrics = await request(`${relayer.url}/metrics`);
      const low = String(metrics.body)
        .split('\n')
        .filter((l) => l.startsWith('warpgate_relayer_key_low_balance{') && l.toLowerCase().includes(address));
      expect(low.length, 'a low-balance gauge per destination').toBe(2);
      for (const l of low) expect(l.endsWith(' 1'), l).toBe(true);
      const warned = relayer.proc.stdoutLines.filter((l) => l.includes('relayer key balance is low') && l.toLowerCase().includes(address));
      expect(warned.length).toBeGreaterThan(0);
      expect(await deliveredCount(l1, [toL1])).toBe(0);
      expect(await deliveredCount(cChain, [toC])).toBe(0);

      const tenAvax = 10n * 10n ** 18n;
      await Promise.all([fund(cChain, funder, address, tenAvax), fund(l1, funder, address, tenAvax)]);
      await Promise.all([allDelivered(l1, [toL1], DELIVERY_DEADLINE_MS), allDelivered(cChain, [toC], DELIVERY_DEADLINE_MS)]);
      await expectOneDeliveryEach(l1, address, [toL1], from.l + 1n);
      await expectOneDeliveryEach(cChain, address, [toC], from.c + 1n);
      // Nothing was lost to the checkpoint either: the record says delivered.
      for (const sent of [toL1, toC]) {
        await waitFor(`${sent.messageId} recorded delivered`, async () => {
          const res = await request(`${relayer.url}/relay/messages/${sent.messageId}`);
          return res.status === 200 && res.body.status === 'delivered' ? true : undefined;
        }, 60_000, 500);
      }
    });
  }, 20 * 60_000);

  it('the WebSocket dropped and refused for a while: the gap is caught up, each message delivered once', async () => {
    const proxies = { c: await cuttableProxy(net.cChain.wsUrl), l: await cuttableProxy(net.l1.wsUrl) };
    const { path } = relayerConfigCopy(net, (config) => {
      for (const chain of config.relayer.chains) chain.wsUrl = chain.blockchainId === net.l1.blockchainId ? proxies.l.url : proxies.c.url;
    });
    try {
      await withRelayer(await startRelayer(path), async (relayer) => {
        const from = await heads(cChain, l1);
        // Live first: the subscription through the relay works.
        const live = await Promise.all([
          sendTeleporterMessage(net, cChain, sender, { destination: l1, message: stringToHex(`live to the L1 ${Date.now()}`) }),
          sendTeleporterMessage(net, l1, otherSender, { destination: cChain, message: stringToHex(`live to the C-Chain ${Date.now()}`) }),
        ]);
        await Promise.all([allDelivered(l1, [live[0]], DELIVERY_DEADLINE_MS), allDelivered(cChain, [live[1]], DELIVERY_DEADLINE_MS)]);

        // Cut: the messages of the gap are sent while no WebSocket can be opened.
        proxies.c.down();
        proxies.l.down();
        const [gapToL1, gapToC] = await Promise.all([sendBurst(net, cChain, sender, l1, BURST, 'ws gap to L1'), sendBurst(net, l1, otherSender, cChain, BURST, 'ws gap to C')]);
        await sleep(5_000);
        // The relayer saw the drop (and is not merely reading the gap through a subscription that survived).
        expect(relayer.proc.stdoutLines.filter((l) => l.includes('relayer: route interrupted')).length).toBeGreaterThanOrEqual(2);
        proxies.c.up();
        proxies.l.up();
        await Promise.all([allDelivered(l1, gapToL1, DELIVERY_DEADLINE_MS), allDelivered(cChain, gapToC, DELIVERY_DEADLINE_MS)]);
        await expectOneDeliveryEach(l1, relayerKey.address, [live[0], ...gapToL1], from.l + 1n);
        await expectOneDeliveryEach(cChain, relayerKey.address, [live[1], ...gapToC], from.c + 1n);
      });
    } finally {
      proxies.c.close();
      proxies.l.close();
    }
  }, 20 * 60_000);

  /** Stops the node `destination`'s rpcUrl reaches for a minute while messages to it are sent; they arrive after it starts again. */
  async function destinationDown(source: TeleporterChain, destination: TeleporterChain, key: FundedKey, relayer: Relayer): Promise<void> {
    const nodeId = nodeServing(net, destination.rpcUrl);
    const from = await heads(cChain, l1);
    nodeAction(net, 'stop', nodeId);
    let started = false;
    try {
      const stoppedAt = Date.now();
      const sent: SentMessage[] = await sendBurst(net, source, key, destination, BURST, `while ${destination.name}'s node is down`);
      await sleep(Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt)));
      expect(relayer.proc.child.exitCode, relayer.proc.stderr()).toBeNull();
      nodeAction(net, 'start', nodeId);
      started = true;
      await allDelivered(destination, sent, DELIVERY_DEADLINE_MS);
      await expectOneDeliveryEach(destination, relayerKey.address, sent, (destination === l1 ? from.l : from.c) + 1n);
    } finally {
      if (!started) nodeAction(net, 'start', nodeId);
    }
  }

  it("the L1's node stopped for a minute, then started: deliveries to the L1 resume, each once", async () => {
    const { path } = relayerConfigCopy(net);
    await withRelayer(await startRelayer(path), (relayer) => destinationDown(cChain, l1, sender, relayer));
  }, 20 * 60_000);

  it("the C-Chain's node stopped for a minute, then started: deliveries to the C-Chain resume, each once", async () => {
    const { path } = relayerConfigCopy(net);
    await withRelayer(await startRelayer(path), (relayer) => destinationDown(l1, cChain, otherSender, relayer));
  }, 20 * 60_000);
});
