// In-memory stand-ins for the relayer's ports (ports.ts): a source chain that mines blocks on
// demand, a destination that counts every transaction it is handed, a signer, leases that a test
// grants and takes away, and a logger that keeps what it was told. The messages are real bytes:
// an unsigned Warp message whose AddressedCall from the messenger carries an ABI-encoded
// TeleporterMessage, decoded the way the relayer decodes them.
import type { MessageOutcome, RelayerEvents } from '../../src/relayer/events.js';
import type { RelayerLogger } from '../../src/relayer/options.js';
import { decodeSourceMessage } from '../../src/relayer/decode.js';
import type {
  DeliveryOutcome,
  Hex,
  MessageRecord,
  MessageDestination,
  MessageSource,
  RouteLeases,
  SignMessage,
  SourceBlock,
  SourceMessage,
  Submission,
  WarpRules,
} from '../../src/relayer/ports.js';
import { untilAborted } from '../../src/util/abortable.js';
import { bytesTo0xHex, encodeAddressedCall, encodeTeleporterMessage, hexToBytes, idToString, newUnsignedMessage, parseId } from '../../src/warp/index.js';

export const CHAIN_A = idToString(new Uint8Array(32).fill(0xa1));
export const CHAIN_B = idToString(new Uint8Array(32).fill(0xb2));
export const MESSENGER: Hex = '0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf';
export const SENDER: Hex = `0x${'51'.repeat(20)}`;
export const RECEIVER: Hex = `0x${'52'.repeat(20)}`;
export const OUR_KEY: Hex = `0x${'0a'.repeat(20)}`;

export interface MessageSpec {
  readonly nonce?: bigint;
  readonly source?: string;
  readonly destination?: string;
  readonly originSender?: Hex;
  readonly destinationAddress?: Hex;
  readonly requiredGasLimit?: bigint;
  readonly allowedRelayers?: readonly Hex[];
  readonly payload?: string;
  readonly block?: { readonly number: number; readonly hash: Hex };
}

const hex32 = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
let nonces = 1_000n;

/** A Teleporter message from `source` (CHAIN_A) to `destination` (CHAIN_B), as a source would report it. */
export function teleporterMessage(spec: MessageSpec = {}): SourceMessage {
  const body = encodeTeleporterMessage({
    messageNonce: spec.nonce ?? nonces++,
    originSenderAddress: hexToBytes(spec.originSender ?? SENDER),
    destinationBlockchainID: parseId(spec.destination ?? CHAIN_B),
    destinationAddress: hexToBytes(spec.destinationAddress ?? RECEIVER),
    requiredGasLimit: spec.requiredGasLimit ?? 100_000n,
    allowedRelayerAddresses: (spec.allowedRelayers ?? []).map((a) => hexToBytes(a)),
    receipts: [],
    message: new TextEncoder().encode(spec.payload ?? 'hello'),
  });
  const unsigned = newUnsignedMessage(1337, parseId(spec.source ?? CHAIN_A), encodeAddressedCall(hexToBytes(MESSENGER), body));
  const block = spec.block ?? { number: 1, hash: hex32(1) };
  return decodeSourceMessage(bytesTo0xHex(unsigned.bytes) as Hex, { blockNumber: block.number, blockHash: block.hash, transactionHash: hex32(block.number * 1000 + 1), logIndex: 0 });
}

type Handlers = Parameters<MessageSource['subscribe']>[0];

export class FakeSource implements MessageSource {
  readonly blocks = new Map<number, SourceBlock>();
  headNumber = 0;
  /** Every range blocksInRange was asked for. */
  readonly ranges: Array<[number, number]> = [];
  subscriptions = 0;
  /** When set, head and blocksInRange fail with it. */
  down: string | undefined;
  /** When true, mined blocks are not announced (a subscription that died without saying so). */
  silent = false;
  private readonly subscribers = new Set<Handlers>();

  constructor(readonly blockchainId: string = CHAIN_A) {}

  /** Mines one block holding these messages (none: an empty block) and announces it. */
  mine(specs: readonly MessageSpec[] = []): SourceMessage[] {
    const number = ++this.headNumber;
    const hash = hex32(number);
    const messages = specs.map((s) => teleporterMessage({ source: this.blockchainId, ...s, block: { number, hash } }));
    const block = { number, hash, messages };
    this.blocks.set(number, block);
    if (!this.silent) for (const s of [...this.subscribers]) s.onBlock(block);
    return messages;
  }

  /** Loses every subscription. */
  drop(reason = 'websocket closed'): void {
    const subs = [...this.subscribers];
    this.subscribers.clear();
    for (const s of subs) s.onDrop(new Error(reason));
  }

  get live(): number {
    return this.subscribers.size;
  }

  async head(): Promise<number> {
    if (this.down) throw new Error(this.down);
    return this.headNumber;
  }

  async blocksInRange(from: number, to: number): Promise<SourceBlock[]> {
    if (this.down) throw new Error(this.down);
    this.ranges.push([from, to]);
    const out: SourceBlock[] = [];
    for (let n = from; n <= Math.min(to, this.headNumber); n++) {
      const block = this.blocks.get(n);
      if (block?.messages.length) out.push(block);
    }
    return out;
  }

  subscribe(handlers: Handlers): () => void {
    this.subscriptions++;
    this.subscribers.add(handlers);
    return () => this.subscribers.delete(handlers);
  }
}

export class FakeDestination implements MessageDestination {
  /** Teleporter IDs delivered here. */
  readonly received = new Set<Hex>();
  /** Every transaction broadcast (what a chain would count), in order. */
  readonly transactions: Array<{ readonly warpMessageId: Hex; readonly txHash: Hex }> = [];
  /** Transactions that mined (a restart's pending ones are looked up here). */
  readonly mined = new Set<Hex>();
  /** The `pending` lists deliver() was given. */
  readonly pendingSeen: Submission[][] = [];
  addresses: Hex[] = [OUR_KEY];
  /** When set, every call fails with it (a node that is down). */
  down: string | undefined;
  /** When set, a delivery waits for it after broadcasting (a slow receipt). */
  hold: Promise<void> | undefined;
  /** Decides a delivery's outcome instead of the default "delivered". */
  outcome: ((message: SourceMessage) => DeliveryOutcome | undefined) | undefined;
  concurrent = 0;
  maxConcurrent = 0;
  private nonce = 0;

  constructor(readonly blockchainId: string = CHAIN_B) {}

  async warpRules(): Promise<WarpRules> {
    if (this.down) throw new Error(this.down);
    return { quorumNumerator: 67, requirePrimaryNetworkSigners: false };
  }

  async messageReceived(teleporterMessageId: Hex): Promise<boolean> {
    if (this.down) throw new Error(this.down);
    return this.received.has(teleporterMessageId);
  }

  relayerAddresses(): readonly Hex[] {
    return this.addresses;
  }

  async deliver(
    message: SourceMessage,
    _signed: Hex,
    options: { readonly pending: readonly Submission[]; record(s: Submission): Promise<void>; signal?: AbortSignal },
  ): Promise<DeliveryOutcome> {
    this.concurrent++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.concurrent);
    try {
      if (this.down) throw new Error(this.down);
      if (options.pending.length) {
        this.pendingSeen.push([...options.pending]);
        const mined = options.pending.find((p) => this.mined.has(p.txHash));
        if (mined) {
          this.received.add(message.teleporterMessageId);
          return { kind: 'delivered', txHash: mined.txHash, gasUsed: 90_000n, effectiveGasPrice: 1n };
        }
      }
      const custom = this.outcome?.(message);
      if (custom) return custom;
      const nonce = this.nonce++;
      const txHash = hex32(0xdead0000 + nonce);
      await options.record({ txHash, from: this.addresses[0]!, nonce, gasLimit: 250_000n, maxFeePerGas: 30n, maxPriorityFeePerGas: 1n, at: Date.now() });
      this.transactions.push({ warpMessageId: message.warpMessageId, txHash });
      this.mined.add(txHash);
      if (this.hold) await untilAborted(this.hold, options.signal);
      this.received.add(message.teleporterMessageId);
      return { kind: 'delivered', txHash, gasUsed: 120_000n, effectiveGasPrice: 1n };
    } finally {
      this.concurrent--;
    }
  }

  /** How many transactions each message got. */
  transactionsPerMessage(): Map<Hex, number> {
    const counts = new Map<Hex, number>();
    for (const t of this.transactions) counts.set(t.warpMessageId, (counts.get(t.warpMessageId) ?? 0) + 1);
    return counts;
  }
}

/** A signer that appends a fake signature; `failing` makes it throw (an aggregation that misses quorum). */
export function fakeSigner(): { sign: SignMessage; calls: number; failing: string | undefined } {
  const signer = {
    calls: 0,
    failing: undefined as string | undefined,
    sign: (async (unsigned: Hex) => {
      signer.calls++;
      if (signer.failing) throw new Error(signer.failing);
      return { signedMessage: `${unsigned}${'ab'.repeat(8)}` as Hex, signers: 3 };
    }) as SignMessage,
  };
  return signer;
}

/** Leases a test grants and takes away. */
export class FakeLeases implements RouteLeases {
  readonly held = new Map<string, boolean>();
  private onChange: ((route: string, held: boolean) => void) | undefined;

  constructor(private readonly initially = true) {}

  holds(route: string): boolean {
    return this.held.get(route) ?? false;
  }

  start(routes: readonly string[], onChange: (route: string, held: boolean) => void): void {
    this.onChange = onChange;
    for (const r of routes) this.set(r, this.initially);
  }

  set(route: string, held: boolean): void {
    this.held.set(route, held);
    this.onChange?.(route, held);
  }

  async stop(): Promise<void> {
    this.held.clear();
  }
}

export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error' | 'debug';
  readonly obj: object;
  readonly msg: string | undefined;
}

export function memoryLogger(): RelayerLogger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (obj: object, msg?: string) => void entries.push({ level, obj, msg });
  return { entries, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

/** Polls `check` until it holds, failing after `timeoutMs` with `what` (generous: the machine is shared). */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A stored record of a fresh message (route a->b, seen), with `overrides`. */
export function recordOf(overrides: Partial<MessageRecord> & { nonce?: bigint } = {}): MessageRecord {
  const { nonce = 1n, ...rest } = overrides;
  const message = teleporterMessage({ nonce });
  return { route: 'a->b', status: 'seen', version: 1, message, submissions: [], attempts: 0, firstSeenAt: 1, updatedAt: 1, ...rest };
}


/** Events as a test reads them. */
export function recordingEvents(): Required<RelayerEvents> & {
  readonly outcomes: Array<{ route: string; outcome: MessageOutcome; reason?: string }>;
  readonly checkpoints: number[];
  readonly retries: string[];
  readonly parkedCounts: number[];
  readonly latencies: number[];
  readonly gas: bigint[];
  readonly aggregations: number[];
} {
  const e = {
    outcomes: [] as Array<{ route: string; outcome: MessageOutcome; reason?: string }>,
    checkpoints: [] as number[],
    retries: [] as string[],
    parkedCounts: [] as number[],
    latencies: [] as number[],
    gas: [] as bigint[],
    aggregations: [] as number[],
    outcome: (route: string, outcome: MessageOutcome, reason?: string) => void e.outcomes.push({ route, outcome, ...(reason ? { reason } : {}) }),
    deliveryLatency: (_r: string, s: number) => void e.latencies.push(s),
    aggregation: (_r: string, _s: number, signers: number) => void e.aggregations.push(signers),
    gasUsed: (_r: string, g: bigint) => void e.gas.push(g),
    checkpoint: (_r: string, h: number) => void e.checkpoints.push(h),
    retry: (_r: string, reason: string) => void e.retries.push(reason),
    parked: (_r: string, n: number) => void e.parkedCounts.push(n),
  };
  return e;
}
