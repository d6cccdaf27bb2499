// What the relayer tests on the interop network check on the destination chains: that messages
// arrive (messageReceived), and that each arrived once and cost one delivery transaction,
// counted on chain: the messenger's ReceiveCrossChainMessage events, and every transaction the
// relayer's key sent to the messenger, reverted ones included.
import type { Address, Hex } from 'viem';
import { expect } from 'vitest';
import { deliveryTransactions, messageReceived, messengerAbi, type SentMessage, type TeleporterChain } from './teleporter.js';

export const DELIVERY_DEADLINE_MS = 10 * 60_000;

/** Waits until every message has `messageReceived` on its destination (a destination that does not answer, its node stopped by a test, is asked again). */
export async function allDelivered(destination: TeleporterChain, sent: readonly SentMessage[], deadlineMs = DELIVERY_DEADLINE_MS): Promise<void> {
  const pending = new Set(sent.map((s) => s.messageId));
  const deadline = Date.now() + deadlineMs;
  while (pending.size > 0) {
    if (Date.now() > deadline) throw new Error(`${pending.size} of ${sent.length} messages to ${destination.name} not delivered within ${deadlineMs / 1000} s`);
    await Promise.all(
      [...pending].map(async (id) => {
        if (await messageReceived(destination, id).catch(() => false)) pending.delete(id);
      }),
    );
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 2000));
  }
}

export async function deliveredCount(destination: TeleporterChain, sent: readonly SentMessage[]): Promise<number> {
  return (await Promise.all(sent.map((s) => messageReceived(destination, s.messageId)))).filter(Boolean).length;
}

/** The messenger's ReceiveCrossChainMessage events since `fromBlock`: message ID → how many. */
export async function receivedEvents(destination: TeleporterChain, fromBlock: bigint): Promise<Map<Hex, number>> {
  const logs = await destination.client.getContractEvents({ address: destination.messenger, abi: messengerAbi, eventName: 'ReceiveCrossChainMessage', fromBlock });
  const counts = new Map<Hex, number>();
  for (const log of logs) {
    const id = (log as unknown as { args: { messageID: Hex } }).args.messageID;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** Each message received once, and the relayer's key sent exactly one transaction per message since `fromBlock`. */
export async function expectOneDeliveryEach(destination: TeleporterChain, relayerKey: Address, sent: readonly SentMessage[], fromBlock: bigint): Promise<void> {
  const events = await receivedEvents(destination, fromBlock);
  for (const s of sent) expect(events.get(s.messageId), `ReceiveCrossChainMessage of ${s.messageId}`).toBe(1);
  const txs = await deliveryTransactions(destination, relayerKey, fromBlock);
  expect(txs.length, `delivery transactions from the relayer's key on ${destination.name}`).toBe(sent.length);
}
