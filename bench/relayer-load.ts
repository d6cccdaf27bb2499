// The load side of bench/relayer.ts on the interop network (test/interop/paths.ts describes it):
// Teleporter messages sent at a steady rate from one funded key (open loop: message i leaves at
// start + i / rate whatever the relayer does, each transaction signed here with its own nonce and
// fixed fees, so a send costs the node one eth_sendRawTransaction), and the messenger's logs
// watched on both sides: SendCrossChainMessage on the source (the send is in an accepted block)
// and ReceiveCrossChainMessage on the destination (the relayer delivered it).
import { readFileSync } from 'node:fs';
import {
  createPublicClient,
  encodeFunctionData,
  http,
  stringToHex,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesTo0xHex, parseCb58Id } from '../src/warp/index.js';
import { CONTRACTS_DIR, type FundedKey, type NetworkDescription } from '../test/interop/paths.js';

let abi: Abi | undefined;
/** Our messenger's ABI, as interop/build.sh compiled it (npm run interop:network builds it). */
export function messengerAbi(): Abi {
  const path = `${CONTRACTS_DIR}/TeleporterMessengerCompatible.json`;
  try {
    abi ??= (JSON.parse(readFileSync(path, 'utf8')) as { abi: Abi }).abi;
  } catch (err) {
    throw new Error(`cannot read ${path} (run interop/build.sh): ${(err as Error).message}`);
  }
  return abi;
}

export interface BenchChain {
  name: string;
  blockchainId: string;
  blockchainIdHex: Hex;
  rpcUrl: string;
  evmChainId: number;
  messenger: Address;
  receiver: Address;
  client: PublicClient;
}

function chainOf(net: NetworkDescription, name: string, c: { blockchainId: string; rpcUrl: string; evmChainId: number }): BenchChain {
  const messenger = net.teleporter[c.blockchainId];
  const receiver = net.receivers[c.blockchainId];
  if (!messenger || !receiver) throw new Error(`the network description has no Teleporter on ${name} (${c.blockchainId}): start it with npm run interop:network from this checkout`);
  return {
    name,
    blockchainId: c.blockchainId,
    blockchainIdHex: bytesTo0xHex(parseCb58Id(c.blockchainId)) as Hex,
    rpcUrl: c.rpcUrl,
    evmChainId: c.evmChainId,
    messenger: messenger.toLowerCase() as Address,
    receiver,
    // cacheTime 0: viem would keep a block number 4 s, longer than the latencies measured here.
    client: createPublicClient({ cacheTime: 0, transport: http(c.rpcUrl, { timeout: 30_000 }) }),
  };
}

export function benchChains(net: NetworkDescription): { cChain: BenchChain; l1: BenchChain } {
  return { cChain: chainOf(net, 'C-Chain', net.cChain), l1: chainOf(net, 'L1', net.l1) };
}

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(30_000) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error || body.result === undefined) throw new Error(`${method} on ${url}: ${body.error?.message ?? 'no result'}`);
  return body.result;
}

/**
 * A block's timestamp in ms, and whether the chain gave it to the millisecond: after Granite
 * (ACP-226) coreth and subnet-evm add `timestampMilliseconds` to a block; before, seconds only.
 */
export async function blockTimeMs(chain: BenchChain, blockNumber: bigint): Promise<{ ms: number; milliseconds: boolean }> {
  const block = await rpc<{ timestamp: Hex; timestampMilliseconds?: Hex } | null>(chain.rpcUrl, 'eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false]);
  if (!block) throw new Error(`${chain.name} has no block ${blockNumber}`);
  if (block.timestampMilliseconds !== undefined) return { ms: Number(BigInt(block.timestampMilliseconds)), milliseconds: true };
  return { ms: Number(BigInt(block.timestamp)) * 1000, milliseconds: false };
}

/** A messenger log the bench saw, and when it saw it (wall clock, ms since the epoch). */
export interface SeenLog {
  messageId: Hex;
  txHash: Hex;
  blockNumber: bigint;
  seenAtMs: number;
}

/**
 * Polls a chain's messenger for one event every `everyMs` from `fromBlock` on, in accepted
 * blocks (eth_blockNumber is the last accepted block on Avalanche EVM chains), keyed by message
 * ID (the first log of an ID wins: a second one would be a second delivery, counted apart).
 */
export class MessengerLogs {
  readonly byMessage = new Map<Hex, SeenLog>();
  /** Logs of a message ID seen before (a message received twice would show here). */
  duplicates = 0;
  private next: bigint;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly chain: BenchChain,
    private readonly eventName: 'SendCrossChainMessage' | 'ReceiveCrossChainMessage',
    fromBlock: bigint,
    private readonly everyMs: number,
  ) {
    this.next = fromBlock;
  }

  start(): void {
    const tick = async (): Promise<void> => {
      try {
        await this.poll();
      } catch (err) {
        process.stderr.write(`relayer bench: reading ${this.eventName} on ${this.chain.name}: ${(err as Error).message}\n`);
      }
      if (!this.stopped) this.timer = setTimeout(() => void tick(), this.everyMs);
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Resolves once every ID in `ids` has a log, or rejects at the deadline. */
  async waitFor(ids: readonly Hex[], deadlineMs: number, what: string): Promise<void> {
    const missing = (): Hex[] => ids.filter((id) => !this.byMessage.has(id));
    if (missing().length === 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${missing().length} of ${ids.length} ${what} not seen on ${this.chain.name} within ${deadlineMs / 1000} s`));
      }, deadlineMs);
      const check = (): void => {
        if (missing().length > 0) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  private async poll(): Promise<void> {
    const head = await this.chain.client.getBlockNumber();
    if (head < this.next) return;
    const logs = await this.chain.client.getContractEvents({ address: this.chain.messenger, abi: messengerAbi(), eventName: this.eventName, fromBlock: this.next, toBlock: head });
    const seenAtMs = Date.now();
    for (const log of logs) {
      const messageId = (log as unknown as { args: { messageID: Hex } }).args.messageID;
      if (this.byMessage.has(messageId)) this.duplicates++;
      else this.byMessage.set(messageId, { messageId, txHash: log.transactionHash!, blockNumber: log.blockNumber!, seenAtMs });
    }
    this.next = head + 1n;
    if (logs.length) for (const w of [...this.waiters]) w();
  }
}

/** One send transaction: when it was handed to the node, and its hash. */
export interface Submission {
  txHash: Hex;
  submittedAtMs: number;
  /** How late against its schedule (start + i / rate) it left, ms. */
  lateMs: number;
}

export interface SendPlan {
  source: BenchChain;
  destination: BenchChain;
  key: FundedKey;
  count: number;
  perSecond: number;
  requiredGasLimit: bigint;
  payloadBytes: number;
  /** Text that makes this run's payloads its own. */
  label: string;
}

/** The gas limit of one sendCrossChainMessage (it uses ~150k with a short payload; the rest is headroom). */
const SEND_GAS = 600_000n;

/** A payload of `bytes` bytes starting with `text`. */
export function payload(text: string, bytes: number): Hex {
  return stringToHex(text.length >= bytes ? text.slice(0, bytes) : text + '.'.repeat(bytes - text.length));
}

/**
 * Sends `count` messages at `perSecond` (open loop): each one signed here with the next nonce,
 * fees fixed at the start at three times the node's suggestion (so a base fee rising under the
 * load does not strand a send), and handed to the source node. Resolves once all are submitted.
 */
export async function sendAtRate(plan: SendPlan): Promise<Submission[]> {
  const account = privateKeyToAccount(plan.key.privateKey);
  const client = plan.source.client;
  let nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const fees = await client.estimateFeesPerGas();
  const maxFeePerGas = fees.maxFeePerGas * 3n;
  const maxPriorityFeePerGas = fees.maxPriorityFeePerGas;
  const start = performance.now();
  const out: Submission[] = [];
  for (let i = 0; i < plan.count; i++) {
    const due = start + (i * 1000) / plan.perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const data = encodeFunctionData({
      abi: messengerAbi(),
      functionName: 'sendCrossChainMessage',
      args: [
        {
          destinationBlockchainID: plan.destination.blockchainIdHex,
          destinationAddress: plan.destination.receiver,
          feeInfo: { feeTokenAddress: '0x0000000000000000000000000000000000000000', amount: 0n },
          requiredGasLimit: plan.requiredGasLimit,
          allowedRelayerAddresses: [],
          message: payload(`${plan.label} ${plan.source.name} to ${plan.destination.name} #${i} `, plan.payloadBytes),
        },
      ],
    });
    const signed = await account.signTransaction({ type: 'eip1559', chainId: plan.source.evmChainId, to: plan.source.messenger, data, nonce: nonce++, gas: SEND_GAS, maxFeePerGas, maxPriorityFeePerGas });
    const lateMs = Math.max(0, performance.now() - due);
    const submittedAtMs = Date.now();
    const txHash = await client.sendRawTransaction({ serializedTransaction: signed });
    out.push({ txHash, submittedAtMs, lateMs });
  }
  return out;
}
