// After bench/relayer.ts's timed window: one direction's messages joined with what the chains
// hold (block times, delivery receipts and transactions), the relayer key's delivery
// transactions counted block by block, and the relayer's own metrics over the window. Read after
// the window, so that none of these calls competes with the relayer while it is measured.
import { encodeEventTopics, type Address, type Hex } from 'viem';
import { blockTimeMs, messengerAbi, type BenchChain, type MessengerLogs, type Submission } from './relayer-load.js';
import { directionFigures, metricDelta, spread, type DirectionFigures, type MessageSample, type Spread } from './relayer-figures.js';
import { round } from './stats.js';

export interface CollectInput {
  name: string;
  source: BenchChain;
  destination: BenchChain;
  sends: MessengerLogs;
  receives: MessengerLogs;
  submissions: readonly Submission[];
  relayerAddress: Address;
  /** The destination's blocks of the timed window, for counting delivery transactions. */
  fromBlock: bigint;
  toBlock: bigint;
  /** The relayer's /metrics at the start and at the end of the window. */
  before: Map<string, number>;
  after: Map<string, number>;
}

export interface DirectionResult {
  name: string;
  route: string;
  figures: DirectionFigures;
  /** Transactions the relayer's key sent to the destination's messenger in the window (reverted ones included). */
  deliveryTransactions: { total: number; reverted: number };
  /** ReceiveCrossChainMessage logs of a message already received: a second delivery. */
  duplicateReceives: number;
  /** Delivered messages whose receiver call failed (MessageExecutionFailed): received, but not executed. */
  executionFailed: number;
  /**
   * The time between consecutive destination blocks in the window: a delivery waits for the
   * destination's next block, so this is the floor under the latency.
   */
  destinationBlockIntervalMs: Spread | undefined;
  /** From the relayer's /metrics over the window (its route's series). */
  relayerMetrics: { delivered: number; deliverySecondsMean: number | undefined; aggregationSecondsMean: number | undefined; retries: number; gasUsed: number };
  millisecondBlockTimes: boolean;
}

export async function collectDirection(input: CollectInput): Promise<DirectionResult> {
  const { source, destination } = input;
  let millisecondBlockTimes = true;
  const times = new Map<string, Promise<number>>();
  const timeOf = (chain: BenchChain, n: bigint): Promise<number> => {
    const key = `${chain.blockchainId}:${n}`;
    let t = times.get(key);
    if (!t) {
      t = blockTimeMs(chain, n).then((b) => {
        millisecondBlockTimes &&= b.milliseconds;
        return b.ms;
      });
      times.set(key, t);
    }
    return t;
  };
  const sendByTx = new Map([...input.sends.byMessage.values()].map((l) => [l.txHash, l]));
  const [executionFailedTopic] = encodeEventTopics({ abi: messengerAbi(), eventName: 'MessageExecutionFailed' });
  let executionFailed = 0;
  const samples: MessageSample[] = [];
  for (const sub of input.submissions) {
    const sent = sendByTx.get(sub.txHash);
    if (!sent) throw new Error(`${input.name}: send ${sub.txHash} never seen in a block`);
    const sample: MessageSample = { messageId: sent.messageId, submittedAtMs: sub.submittedAtMs, sendSeenAtMs: sent.seenAtMs, sourceBlockTimeMs: await timeOf(source, sent.blockNumber) };
    const received = input.receives.byMessage.get(sent.messageId);
    if (received) {
      const [receipt, tx] = await Promise.all([destination.client.getTransactionReceipt({ hash: received.txHash }), destination.client.getTransaction({ hash: received.txHash })]);
      if (receipt.logs.some((l) => l.topics[0] === executionFailedTopic && l.topics[1] === sent.messageId)) executionFailed++;
      sample.delivery = { txHash: received.txHash, blockTimeMs: await timeOf(destination, received.blockNumber), gasUsed: Number(receipt.gasUsed), gasLimit: Number(tx.gas), reverted: receipt.status !== 'success' };
    }
    samples.push(sample);
  }

  let total = 0;
  let reverted = 0;
  const intervals: number[] = [];
  for (let n = input.fromBlock; n <= input.toBlock; n++) {
    if (n > input.fromBlock) intervals.push((await timeOf(destination, n)) - (await timeOf(destination, n - 1n)));
    const block = await destination.client.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() !== input.relayerAddress.toLowerCase() || tx.to?.toLowerCase() !== destination.messenger) continue;
      total++;
      if ((await destination.client.getTransactionReceipt({ hash: tx.hash as Hex })).status !== 'success') reverted++;
    }
  }

  const route = `${source.blockchainId}->${destination.blockchainId}`;
  const delta = (name: string, labels: Record<string, string> = {}): number => metricDelta(input.before, input.after, name, { route, ...labels });
  const mean = (name: string): number | undefined => {
    const count = delta(`${name}_count`);
    return count > 0 ? round(delta(`${name}_sum`) / count, 3) : undefined;
  };
  return {
    name: input.name,
    route,
    figures: directionFigures(samples),
    deliveryTransactions: { total, reverted },
    duplicateReceives: input.receives.duplicates,
    executionFailed,
    destinationBlockIntervalMs: spread(intervals, 0),
    relayerMetrics: {
      delivered: delta('warpgate_relayer_messages_total', { outcome: 'delivered' }),
      deliverySecondsMean: mean('warpgate_relayer_delivery_seconds'),
      aggregationSecondsMean: mean('warpgate_relayer_aggregation_seconds'),
      retries: delta('warpgate_relayer_retries_total'),
      gasUsed: delta('warpgate_relayer_gas_used_total'),
    },
    millisecondBlockTimes,
  };
}
