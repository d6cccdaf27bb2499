// Fakes of the relayer's seams (src/relayer/ports.ts) for the surface's tests: a RelayerControl
// whose records, routes and readiness a test sets, recording what it was asked; a running
// relayer (start/stop) built by a factory the wiring is given; sources and destinations that
// answer from a script. The engine and the EVM side have their own tests in their branches.
import type {
  DeliveryOutcome,
  Hex,
  MessageStatus,
  SourceBlock,
  Submission,
  MessageDestination,
  MessageRecord,
  MessageSource,
  RelayerControl,
  RelayerStore,
  RouteState,
  SourceMessage,
  WarpRules,
} from '../../src/relayer/ports.js';
import { RelayerError } from '../../src/relayer/errors.js';

export const hex32 = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;

export function sourceMessage(over: Partial<SourceMessage> = {}): SourceMessage {
  return {
    warpMessageId: hex32(1),
    teleporterMessageId: hex32(2),
    sourceBlockchainId: 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp',
    destinationBlockchainId: '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm',
    unsignedMessage: '0x00',
    blockNumber: 10,
    blockHash: hex32(3),
    transactionHash: hex32(4),
    logIndex: 0,
    originSenderAddress: `0x${'aa'.repeat(20)}`,
    destinationAddress: `0x${'bb'.repeat(20)}`,
    requiredGasLimit: 100_000n,
    allowedRelayerAddresses: [],
    receiptCount: 0,
    payloadBytes: 32,
    ...over,
  };
}

/** A delivery transaction as the destination records it before broadcast. */
export function submission(txHash: Hex): Submission {
  return { txHash, from: `0x${'cc'.repeat(20)}`, nonce: 1, gasLimit: 500_000n, maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, at: 1_000 };
}

export function messageRecord(over: Partial<MessageRecord> = {}): MessageRecord {
  const message = over.message ?? sourceMessage();
  const status: MessageStatus = 'seen';
  return {
    route: `${message.sourceBlockchainId}->${message.destinationBlockchainId}`,
    status,
    version: 1,
    message,
    submissions: [],
    attempts: 0,
    firstSeenAt: 1_000,
    updatedAt: 1_000,
    ...over,
  };
}

/** A RelayerControl a test drives: `records` are found by either ID; relay requests are recorded and answered by `onRelay`. */
export class FakeControl implements RelayerControl {
  records: MessageRecord[] = [];
  routeStates: RouteState[] = [];
  ready: { ready: boolean; reasons: string[] } = { ready: true, reasons: [] };
  readonly relayed: unknown[] = [];
  onRelay: (request: unknown) => Promise<MessageRecord> = () => Promise.reject(new RelayerError('no-route', 'no route relays this message'));

  routes(): readonly RouteState[] {
    return this.routeStates;
  }
  readiness() {
    return this.ready;
  }
  async find(id: Hex): Promise<MessageRecord | undefined> {
    return this.records.find((r) => r.message.warpMessageId === id || r.message.teleporterMessageId === id);
  }
  relayFromBlock(request: { blockchainId: string; messageId: Hex; blockNumber: number }): Promise<MessageRecord> {
    this.relayed.push(request);
    return this.onRelay(request);
  }
  relayMessage(request: { unsignedMessage: Hex; sourceAddress: Hex }): Promise<MessageRecord> {
    this.relayed.push(request);
    return this.onRelay(request);
  }
}

/** A relayer as the engine's factory returns it: a FakeControl that records start and stop. */
export class FakeRelayer extends FakeControl {
  started = 0;
  stopped = 0;
  async start(): Promise<void> {
    this.started++;
  }
  async stop(): Promise<void> {
    this.stopped++;
  }
}

export function fakeSource(blockchainId: string): MessageSource {
  return {
    blockchainId,
    head: async () => 100,
    blocksInRange: async (): Promise<SourceBlock[]> => [],
    subscribe: () => () => undefined,
  };
}

export function fakeDestination(blockchainId: string, rules: WarpRules = { quorumNumerator: 67, requirePrimaryNetworkSigners: false }, addresses: Hex[] = []): MessageDestination {
  return {
    blockchainId,
    warpRules: async () => rules,
    messageReceived: async () => false,
    relayerAddresses: () => addresses,
    deliver: async (): Promise<DeliveryOutcome> => ({ kind: 'retry', reason: 'fake destination' }),
  };
}

/** A store that holds nothing and records that it was closed. */
export function fakeStore(): RelayerStore & { closed: number } {
  return {
    closed: 0,
    get: async () => undefined,
    insert: async () => true,
    update: async () => true,
    list: async () => [],
    checkpoint: async () => undefined,
    advanceCheckpoint: async () => undefined,
    prune: async () => 0,
    async close() {
      this.closed++;
    },
  };
}
