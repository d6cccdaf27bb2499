// Teleporter on the interop network, through viem: our messenger and test receiver
// (interop/contracts, deployed by the harness at the same address on both chains), sending a
// message, and delivering a signed one by hand as a relayer would (protocol.md §11).
import { readFileSync } from 'node:fs';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  http,
  keccak256,
  parseEventLogs,
  stringToHex,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesTo0xHex, parseCb58Id } from '../../src/warp/index.js';
import { warpPredicate, WARP_PRECOMPILE } from './evm.js';
import { acceptedEverywhere, rpc } from './helpers.js';
import { CONTRACTS_DIR, type FundedKey, type NetworkDescription } from './paths.js';

function abiOf(contract: string): Abi {
  return (JSON.parse(readFileSync(`${CONTRACTS_DIR}/${contract}.json`, 'utf8')) as { abi: Abi }).abi;
}

export const messengerAbi = abiOf('TeleporterMessengerCompatible');
export const receiverAbi = abiOf('ReceiverForTests');

export interface TeleporterChain {
  name: string;
  /** The chain's path under a node's /ext/bc/. */
  alias: string;
  blockchainId: string;
  /** The blockchain ID as the bytes32 Teleporter and the Warp precompile use. */
  blockchainIdHex: Hex;
  rpcUrl: string;
  evmChainId: number;
  proposervmUrl: string;
  messenger: Address;
  receiver: Address;
  client: PublicClient;
}

function chainOf(net: NetworkDescription, name: string, alias: string, c: { blockchainId: string; rpcUrl: string; evmChainId: number }, nodeUri: string): TeleporterChain {
  const messenger = net.teleporter[c.blockchainId];
  const receiver = net.receivers[c.blockchainId];
  if (!messenger || !receiver) throw new Error(`the network description has no Teleporter on ${name} (${c.blockchainId})`);
  return {
    name,
    alias,
    blockchainId: c.blockchainId,
    blockchainIdHex: bytesTo0xHex(parseCb58Id(c.blockchainId)) as Hex,
    rpcUrl: c.rpcUrl,
    evmChainId: c.evmChainId,
    proposervmUrl: `${nodeUri}/ext/bc/${alias}/proposervm`,
    messenger,
    receiver,
    // cacheTime 0: viem keeps getBlockNumber for 4 s by default, and a test counting the blocks
    // since a head it read a moment ago must see the head of now.
    client: createPublicClient({ cacheTime: 0, transport: http(c.rpcUrl, { timeout: 30_000 }) }),
  };
}

export function teleporterChains(net: NetworkDescription): { cChain: TeleporterChain; l1: TeleporterChain } {
  return {
    cChain: chainOf(net, 'C-Chain', 'C', net.cChain, net.nodes[0]!.uri),
    l1: chainOf(net, 'L1', net.l1.blockchainId, net.l1, net.l1.validators[0]!.uri),
  };
}

function walletOf(chain: TeleporterChain, key: FundedKey) {
  const viemChain = defineChain({
    id: chain.evmChainId,
    name: chain.name,
    nativeCurrency: { name: 'AVAX', symbol: 'AVAX', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  return createWalletClient({ account: privateKeyToAccount(key.privateKey), chain: viemChain, transport: http(chain.rpcUrl, { timeout: 30_000 }) });
}

/** A TeleporterMessage as viem decodes it from the messenger's events. */
export interface DecodedTeleporterMessage {
  messageNonce: bigint;
  originSenderAddress: Address;
  destinationBlockchainID: Hex;
  destinationAddress: Address;
  requiredGasLimit: bigint;
  allowedRelayerAddresses: readonly Address[];
  receipts: readonly { receivedMessageNonce: bigint; relayerRewardAddress: Address }[];
  message: Hex;
}

export interface SentMessage {
  messageId: Hex;
  message: DecodedTeleporterMessage;
  /** The Warp precompile's SendWarpMessage log data (what warpgate's aggregation endpoint takes). */
  logData: Hex;
  receipt: TransactionReceipt;
}

export interface SendInput {
  destination: TeleporterChain;
  /** Default: the destination's test receiver. */
  destinationAddress?: Address;
  requiredGasLimit?: bigint;
  allowedRelayerAddresses?: Address[];
  message: Hex;
}

/** Sends a Teleporter message from `key` (an EOA: the origin sender) and waits until every node accepted its block. */
export async function sendTeleporterMessage(net: NetworkDescription, source: TeleporterChain, key: FundedKey, input: SendInput): Promise<SentMessage> {
  const hash = await walletOf(source, key).writeContract({
    address: source.messenger,
    abi: messengerAbi,
    functionName: 'sendCrossChainMessage',
    args: [
      {
        destinationBlockchainID: input.destination.blockchainIdHex,
        destinationAddress: input.destinationAddress ?? input.destination.receiver,
        feeInfo: { feeTokenAddress: '0x0000000000000000000000000000000000000000', amount: 0n },
        requiredGasLimit: input.requiredGasLimit ?? 300_000n,
        allowedRelayerAddresses: input.allowedRelayerAddresses ?? [],
        message: input.message,
      },
    ],
    gas: 1_000_000n,
  });
  const receipt = await source.client.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== 'success') throw new Error(`sendCrossChainMessage ${hash} reverted`);
  const [sent] = parseEventLogs({ abi: messengerAbi, eventName: 'SendCrossChainMessage', logs: receipt.logs });
  const warpLog = receipt.logs.find((l) => l.address.toLowerCase() === WARP_PRECOMPILE);
  if (!sent || !warpLog) throw new Error(`sendCrossChainMessage ${hash} emitted no SendCrossChainMessage or SendWarpMessage`);
  const args = sent.args as unknown as { messageID: Hex; message: DecodedTeleporterMessage };
  await acceptedEverywhere(net, source.alias, receipt.blockNumber);
  return { messageId: args.messageID, message: args.message, logData: warpLog.data, receipt };
}

/** Teleporter v1's message ID, computed here independently of the contract. */
export function teleporterMessageId(messenger: Address, source: TeleporterChain, destination: TeleporterChain, nonce: bigint): Hex {
  return keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }], [messenger, source.blockchainIdHex, destination.blockchainIdHex, nonce]),
  );
}

/**
 * Delivers a signed message by hand, as a relayer does: an EIP-1559 transaction calling
 * receiveCrossChainMessage(0, rewardAddress) on the destination's messenger, the signed message
 * carried as Warp predicate 0 in the access list. Waits for its receipt, reverted or not.
 */
export async function deliverByHand(destination: TeleporterChain, key: FundedKey, signed: Uint8Array, options: { gas?: bigint; rewardAddress?: Address } = {}): Promise<TransactionReceipt> {
  const hash = await walletOf(destination, key).writeContract({
    address: destination.messenger,
    abi: messengerAbi,
    functionName: 'receiveCrossChainMessage',
    args: [0, options.rewardAddress ?? key.address],
    accessList: warpPredicate(signed),
    gas: options.gas ?? 1_500_000n,
  });
  return destination.client.waitForTransactionReceipt({ hash, timeout: 60_000 });
}

export async function messageReceived(chain: TeleporterChain, messageId: Hex): Promise<boolean> {
  return (await chain.client.readContract({ address: chain.messenger, abi: messengerAbi, functionName: 'messageReceived', args: [messageId] })) as boolean;
}

/** What the destination's test receiver holds. */
export async function receiverState(chain: TeleporterChain, from: TeleporterChain): Promise<{ lastMessage: Hex; lastOriginSenderAddress: Address; lastSourceBlockchainID: Hex; receivedFrom: bigint }> {
  const read = (functionName: string, args: unknown[] = []) => chain.client.readContract({ address: chain.receiver, abi: receiverAbi, functionName, args });
  const [lastMessage, lastOriginSenderAddress, lastSourceBlockchainID, receivedFrom] = await Promise.all([
    read('lastMessage'),
    read('lastOriginSenderAddress'),
    read('lastSourceBlockchainID'),
    read('receivedFrom', [from.blockchainIdHex]),
  ]);
  return { lastMessage: lastMessage as Hex, lastOriginSenderAddress: lastOriginSenderAddress as Address, lastSourceBlockchainID: lastSourceBlockchainID as Hex, receivedFrom: receivedFrom as bigint };
}

/** The destination's epoch P-Chain height: the height it verifies Warp messages at (ACP-181). */
export async function epochHeight(chain: TeleporterChain): Promise<number> {
  return Number((await rpc<{ pChainHeight: string }>(chain.proposervmUrl, 'proposervm.getCurrentEpoch')).pChainHeight);
}

/**
 * A burst: `count` messages from the source's test receiver to the destination's, sent in one
 * transaction (ReceiverForTests.sendMessages), so one block holds many Warp messages. Returns
 * each message's Teleporter ID and Warp log data, in log order.
 */
export async function sendBurst(net: NetworkDescription, source: TeleporterChain, key: FundedKey, destination: TeleporterChain, count: number, prefix: string, requiredGasLimit = 200_000n): Promise<SentMessage[]> {
  const hash = await walletOf(source, key).writeContract({
    address: source.receiver,
    abi: receiverAbi,
    functionName: 'sendMessages',
    args: [destination.blockchainIdHex, destination.receiver, requiredGasLimit, BigInt(count), stringToHex(prefix)],
    gas: 150_000n * BigInt(count) + 200_000n,
  });
  const receipt = await source.client.waitForTransactionReceipt({ hash, timeout: 120_000 });
  if (receipt.status !== 'success') throw new Error(`sendMessages ${hash} reverted`);
  const sent = parseEventLogs({ abi: messengerAbi, eventName: 'SendCrossChainMessage', logs: receipt.logs.filter((l) => l.address.toLowerCase() === source.messenger) });
  const warpLogs = receipt.logs.filter((l) => l.address.toLowerCase() === WARP_PRECOMPILE);
  if (sent.length !== count || warpLogs.length !== count) throw new Error(`sendMessages ${hash}: ${sent.length} messages and ${warpLogs.length} Warp logs, expected ${count}`);
  await acceptedEverywhere(net, source.alias, receipt.blockNumber);
  return sent.map((log, i) => {
    const args = log.args as unknown as { messageID: Hex; message: DecodedTeleporterMessage };
    return { messageId: args.messageID, message: args.message, logData: warpLogs[i]!.data, receipt };
  });
}

/**
 * Every transaction `from` sent to the destination's messenger in blocks [fromBlock, head]:
 * the relayer's delivery transactions, reverted ones included (a receipt's status does not
 * matter: each one spent gas).
 */
export async function deliveryTransactions(chain: TeleporterChain, from: Address, fromBlock: bigint): Promise<{ hash: Hex; blockNumber: bigint }[]> {
  const head = await chain.client.getBlockNumber();
  const found: { hash: Hex; blockNumber: bigint }[] = [];
  for (let n = fromBlock; n <= head; n++) {
    const block = await chain.client.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() === from.toLowerCase() && tx.to?.toLowerCase() === chain.messenger) found.push({ hash: tx.hash, blockNumber: n });
    }
  }
  return found;
}
