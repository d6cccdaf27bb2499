// The relayer (issue 37) against the real network: `warpgate relay --config <relayerConfig>`, the
// configuration `interop network` writes (both routes between the C-Chain and the L1 through our
// Teleporter messenger, paying with funded[0]), started from the sources as a user would start
// it. Messages both ways arrive once; a burst of a few hundred arrives once each; a kill -9 in
// the middle of a burst, then a restart on the same store, loses nothing and sends one delivery
// transaction per message; a message asking more gas than the route's cap is skipped with its
// reason while the route moves on. "Once" is counted on the destination: the messenger's
// ReceiveCrossChainMessage events and every transaction the relayer's key sent to the messenger,
// reverted ones included.
import { sha256 } from '@noble/hashes/sha2.js';
import { readFileSync } from 'node:fs';
import { stringToHex, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bytesTo0xHex, hexToBytes, unwrapSendWarpMessageLogData } from '../../src/warp/index.js';
import { cleanEnv, request, startWarpgate, waitFor, type WarpgateProcess } from '../ops/helpers.js';
import type { FundedKey } from './paths.js';
import { allDelivered, deliveredCount, DELIVERY_DEADLINE_MS, expectOneDeliveryEach as expectOneDeliveryEachFrom } from './relayer-checks.js';
import { messageReceived, sendBurst, sendTeleporterMessage, teleporterChains, type SentMessage, type TeleporterChain } from './teleporter.js';

const net = inject('interopNetwork');
const { cChain, l1 } = teleporterChains(net);
const [relayerKey, sender, otherSender] = net.funded as [FundedKey, FundedKey, FundedKey];
const relayerConfig = JSON.parse(readFileSync(net.relayerConfig, 'utf8')) as { relayer: { routes: { maxRequiredGasLimit: number }[] } };
/** Messages per sendMessages transaction: one block with many Warp messages. */
const BURST = 20;

interface Relayer {
  url: string;
  proc: WarpgateProcess;
}

/** `warpgate relay --config <relayerConfig>` from the sources; resolves once /ready says 200. */
async function startRelayer(): Promise<Relayer> {
  const proc = startWarpgate(['relay', '--config', net.relayerConfig], cleanEnv());
  const line = await proc.waitForLine((l) => l.includes('"warpgate listening"'), 120_000);
  const url = (JSON.parse(line) as { url: string }).url;
  await waitFor('the relayer /ready', async () => ((await request(`${url}/ready`)).status === 200 ? true : undefined), 180_000, 500);
  return { url, proc };
}

let relayer: Relayer | undefined;
beforeAll(async () => {
  relayer = await startRelayer();
});
afterAll(async () => {
  await relayer?.proc.kill();
});

/** The Warp message ID: sha256 of the unsigned message the log carries. */
function warpMessageId(sent: SentMessage): Hex {
  return bytesTo0xHex(sha256(unwrapSendWarpMessageLogData(hexToBytes(sent.logData))!)) as Hex;
}

/** Each message received once, and one delivery transaction from the relayer's key each. */
function expectOneDeliveryEach(destination: TeleporterChain, sent: readonly SentMessage[], fromBlock: bigint): Promise<void> {
  return expectOneDeliveryEachFrom(destination, relayerKey.address, sent, fromBlock);
}

async function heads(): Promise<{ c: bigint; l: bigint }> {
  return { c: await cChain.client.getBlockNumber(), l: await l1.client.getBlockNumber() };
}

async function messageState(id: Hex): Promise<{ status: number; json: Record<string, any> }> {
  const res = await request(`${relayer!.url}/relay/messages/${id}`);
  return { status: res.status, json: res.body as Record<string, any> };
}

describe('warpgate relay on the interop network', () => {
  it('relays a message C-Chain → L1 and one L1 → C-Chain, once each; GET /relay/messages/{id} shows it delivered by Teleporter and by Warp ID', async () => {
    const from = await heads();
    const toL1 = await sendTeleporterMessage(net, cChain, sender, { destination: l1, message: stringToHex(`relayed to the L1 ${Date.now()}`) });
    const toC = await sendTeleporterMessage(net, l1, otherSender, { destination: cChain, message: stringToHex(`relayed to the C-Chain ${Date.now()}`) });
    await Promise.all([allDelivered(l1, [toL1]), allDelivered(cChain, [toC])]);
    await expectOneDeliveryEach(l1, [toL1], from.l + 1n);
    await expectOneDeliveryEach(cChain, [toC], from.c + 1n);

    for (const [sent, destination] of [
      [toL1, l1],
      [toC, cChain],
    ] as const) {
      const byTeleporterId = await waitFor(`the relayer's record of ${sent.messageId}`, async () => {
        const state = await messageState(sent.messageId);
        return state.status === 200 && state.json.status === 'delivered' ? state.json : undefined;
      }, 60_000, 500);
      expect(byTeleporterId.message).toMatchObject({ teleporterMessageId: sent.messageId, warpMessageId: warpMessageId(sent), destinationBlockchainId: destination.blockchainId });
      expect(byTeleporterId.deliveredTxHash).toMatch(/^0x[0-9a-f]{64}$/);
      const receipt = await destination.client.getTransactionReceipt({ hash: byTeleporterId.deliveredTxHash as Hex });
      expect(receipt.status).toBe('success');
      expect(receipt.from.toLowerCase()).toBe(relayerKey.address.toLowerCase());
      const byWarpId = await messageState(warpMessageId(sent));
      expect(byWarpId.json).toEqual(byTeleporterId);
    }
  }, 15 * 60_000);

  it('delivers a burst of a few hundred messages across both directions, each once', async () => {
    const from = await heads();
    const toL1: SentMessage[] = [];
    const toC: SentMessage[] = [];
    for (let i = 0; i < 5; i++) {
      const [a, b] = await Promise.all([sendBurst(net, cChain, sender, l1, BURST, `burst ${i} to L1`), sendBurst(net, l1, otherSender, cChain, BURST, `burst ${i} to C`)]);
      toL1.push(...a);
      toC.push(...b);
    }
    await Promise.all([allDelivered(l1, toL1), allDelivered(cChain, toC)]);
    await expectOneDeliveryEach(l1, toL1, from.l + 1n);
    await expectOneDeliveryEach(cChain, toC, from.c + 1n);
  }, 20 * 60_000);

  it('kill -9 in the middle of a burst, then a restart on the same store: every message delivered, one delivery transaction each', async () => {
    const from = await heads();
    const toL1: SentMessage[] = [];
    const toC: SentMessage[] = [];
    for (let i = 0; i < 3; i++) {
      const [a, b] = await Promise.all([sendBurst(net, cChain, sender, l1, BURST, `kill ${i} to L1`), sendBurst(net, l1, otherSender, cChain, BURST, `kill ${i} to C`)]);
      toL1.push(...a);
      toC.push(...b);
    }
    const total = toL1.length + toC.length;
    // Some delivered, not all: then the relayer dies without a word.
    const deliveredAtKill = await waitFor('the first deliveries of the burst', async () => {
      const n = (await deliveredCount(l1, toL1)) + (await deliveredCount(cChain, toC));
      return n >= 5 ? n : undefined;
    }, DELIVERY_DEADLINE_MS, 250);
    relayer!.proc.child.kill('SIGKILL');
    await relayer!.proc.exited(30_000);
    expect(deliveredAtKill, 'killed mid-burst').toBeLessThan(total);

    relayer = await startRelayer();
    await Promise.all([allDelivered(l1, toL1), allDelivered(cChain, toC)]);
    await expectOneDeliveryEach(l1, toL1, from.l + 1n);
    await expectOneDeliveryEach(cChain, toC, from.c + 1n);
  }, 20 * 60_000);

  it("skips a message whose requiredGasLimit is above the route's cap, with the reason, and relays the next one", async () => {
    const cap = BigInt(relayerConfig.relayer.routes[0]!.maxRequiredGasLimit);
    const tooHungry = await sendTeleporterMessage(net, cChain, sender, { destination: l1, message: stringToHex('too hungry'), requiredGasLimit: cap + 1n });
    const next = await sendTeleporterMessage(net, cChain, sender, { destination: l1, message: stringToHex(`after the skipped one ${Date.now()}`) });
    await allDelivered(l1, [next]);
    const skipped = await waitFor('the skipped record', async () => {
      const state = await messageState(tooHungry.messageId);
      return state.status === 200 && state.json.status === 'skipped' ? state.json : undefined;
    }, 60_000, 500);
    expect(skipped.reason).toMatch(/requiredGasLimit/i);
    expect(await messageReceived(l1, tooHungry.messageId)).toBe(false);
    expect(await messageState(`0x${'ab'.repeat(32)}` as Hex)).toMatchObject({ status: 404 });
  }, 15 * 60_000);
});
