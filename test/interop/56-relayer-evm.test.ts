// The relayer's EVM side against the real chains, both directions: the source sees a Teleporter
// message sent through the messenger (live over WebSocket and by range), with the message ID the
// messenger itself computes; the destination reads the chain's Warp rules and delivers the
// message, signed by warpgate at the destination's epoch height, as a real predicate: the
// receiver got the payload, messageReceived is true, the gas limit covered what was used; a
// second delivery of the same message reverts and counts as delivered by another. A WebSocket
// cut under the source is reported once as a drop.
import { createServer, connect, type Socket } from 'node:net';
import { decodeFunctionResult, encodeFunctionData, parseAbi, type Hex } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import { createEvmDestination, createEvmSource } from '../../src/relayer/evm/index.js';
import type { SourceBlock, SourceMessage, Submission } from '../../src/relayer/ports.js';
import { bytesTo0xHex, decodeTeleporterMessage, hexToBytes, parseCb58Id, parsePayload, parseUnsignedMessage } from '../../src/warp/index.js';
import { postJson, waitFor } from '../ops/helpers.js';
import { sendTransaction } from './evm.js';
import { acceptedEverywhere, rpc, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
const warpgate = warpgateForThisFile(net);

const receiverAbi = parseAbi([
  'function sendMessage(bytes32 destinationBlockchainID, address destinationAddress, uint256 requiredGasLimit, address[] allowedRelayerAddresses, bytes message) returns (bytes32)',
  'function lastMessage() view returns (bytes)',
]);
const messengerAbi = parseAbi(['function calculateMessageID(bytes32 sourceBlockchainID, bytes32 destinationBlockchainID, uint256 nonce) view returns (bytes32)']);

interface Side {
  name: string;
  alias: string;
  blockchainId: string;
  rpcUrl: string;
  wsUrl: string;
  evmChainId: number;
  proposervmUrl: string;
}

const cChain: Side = { name: 'C-Chain', alias: 'C', ...net.cChain, proposervmUrl: `${net.nodes[0]!.uri}/ext/bc/C/proposervm` };
const l1: Side = { name: 'L1', alias: net.l1.blockchainId, ...net.l1, proposervmUrl: `${net.l1.validators[0]!.uri}/ext/bc/${net.l1.blockchainId}/proposervm` };
const chainOf = (side: Side) => ({ blockchainId: side.blockchainId, rpcUrl: side.rpcUrl, wsUrl: side.wsUrl, teleporterAddress: net.teleporter[side.blockchainId]! });
const idHex = (cb58: string): Hex => bytesTo0xHex(parseCb58Id(cb58)) as Hex;

function call(side: Side, to: Hex, data: Hex): Promise<Hex> {
  return rpc<Hex>(side.rpcUrl, 'eth_call', [{ to, data }, 'latest']);
}

async function sendThroughReceiver(from: Side, to: Side, text: string): Promise<{ txHash: Hex; block: number }> {
  const data = encodeFunctionData({
    abi: receiverAbi,
    functionName: 'sendMessage',
    args: [idHex(to.blockchainId), net.receivers[to.blockchainId]!, 300_000n, [], bytesTo0xHex(new TextEncoder().encode(text)) as Hex],
  });
  const receipt = await sendTransaction(from.rpcUrl, from.evmChainId, net.funded[1]!, { to: net.receivers[from.blockchainId]!, data, gas: 1_000_000n });
  expect(receipt.status).toBe('0x1');
  await acceptedEverywhere(net, from.alias, BigInt(receipt.blockNumber));
  const tx = await rpc<{ hash: Hex }>(from.rpcUrl, 'eth_getTransactionByBlockHashAndIndex', [receipt.blockHash, '0x0']);
  return { txHash: tx.hash, block: Number(BigInt(receipt.blockNumber)) };
}

async function epochHeight(side: Side): Promise<number> {
  return Number((await rpc<{ pChainHeight: string }>(side.proposervmUrl, 'proposervm.getCurrentEpoch')).pChainHeight);
}

/**
 * Signed by the L1's validators (the source, or a destination that does not require Primary
 * Network signers) at the destination's epoch height. A chain idle since its start has no epoch
 * yet (height 0): one transaction there opens it.
 */
async function sign(destination: Side, unsigned: Hex): Promise<{ signed: Hex; height: number }> {
  let height = await epochHeight(destination);
  if (height === 0) {
    const key = net.funded[1]!;
    await sendTransaction(destination.rpcUrl, destination.evmChainId, key, { to: key.address, data: '0x', gas: 21_000n });
    height = await waitFor('an epoch', async () => ((await epochHeight(destination)) || undefined), 60_000, 500);
  }
  const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: unsigned, signingSubnetId: net.l1.subnetId, pChainHeight: height });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { signed: `0x${String(res.body.signedMessage).replace(/^0x/, '')}`, height };
}

async function relayOnce(from: Side, to: Side, text: string): Promise<void> {
  const source = createEvmSource(chainOf(from));
  const live: SourceBlock[] = [];
  const drops: Error[] = [];
  const unsubscribe = source.subscribe({ onBlock: (b) => live.push(b), onDrop: (e) => drops.push(e) });
  let message: SourceMessage;
  try {
    await new Promise((r) => setTimeout(r, 1_000)); // the subscription is up
    const sent = await sendThroughReceiver(from, to, text);
    const block = await waitFor('the live block', async () => live.find((b) => b.number === sent.block), 60_000, 100);
    expect(drops).toEqual([]);
    expect(block.messages).toHaveLength(1);
    message = block.messages[0]!;
    expect(message).toMatchObject({ transactionHash: sent.txHash, sourceBlockchainId: from.blockchainId, destinationBlockchainId: to.blockchainId, requiredGasLimit: 300_000n });
    expect(message.originSenderAddress).toBe(net.receivers[from.blockchainId]!.toLowerCase());
    // Live blocks come in order, empty ones too.
    expect(live.map((b) => b.number)).toEqual(live.map((_, i) => live[0]!.number + i));
    // The same message by range, and the ID the messenger computes on its own chain.
    const ranged = await source.blocksInRange(sent.block - 3, sent.block);
    expect(ranged.find((b) => b.number === sent.block)).toEqual(block);
    expect(ranged.map((b) => b.number)).toEqual([...ranged.map((b) => b.number)].sort((a, b) => a - b));
    expect(await source.head()).toBeGreaterThanOrEqual(sent.block);
    const id = decodeFunctionResult({
      abi: messengerAbi,
      functionName: 'calculateMessageID',
      data: await call(from, net.teleporter[from.blockchainId]!, encodeFunctionData({ abi: messengerAbi, functionName: 'calculateMessageID', args: [idHex(from.blockchainId), idHex(to.blockchainId), messageNonce(message)] })),
    });
    expect(message.teleporterMessageId).toBe(id);
  } finally {
    unsubscribe();
  }

  const lows: unknown[] = [];
  const destination = createEvmDestination(chainOf(to), { privateKeys: [net.funded[0]!.privateKey], maxFeePerGasCap: 10_000_000_000_000n, receiptTimeoutMs: 20_000, onLowBalance: (d) => lows.push(d) });
  expect(await destination.warpRules()).toEqual({ quorumNumerator: 67, requirePrimaryNetworkSigners: false });
  expect(await destination.messageReceived(message.teleporterMessageId)).toBe(false);
  // The epoch can end between signing and delivery, as a relayer also finds (the engine then
  // signs again): one more try at the new epoch's height.
  const recorded: Submission[] = [];
  let signed: Hex;
  let outcome;
  for (let attempt = 1; ; attempt++) {
    const s = await sign(to, message.unsignedMessage);
    signed = s.signed;
    outcome = await destination.deliver(message, signed, { pending: [], record: async (r) => void recorded.push(r) });
    if (outcome.kind !== 'failed' || attempt === 2 || (await epochHeight(to)) === s.height) break;
  }
  expect(outcome, JSON.stringify(outcome, (_, v) => (typeof v === 'bigint' ? String(v) : v))).toMatchObject({ kind: 'delivered', txHash: recorded.at(-1)!.txHash });
  if (outcome.kind !== 'delivered') return;
  expect(outcome.gasUsed).toBeLessThan(recorded.at(-1)!.gasLimit);
  expect(await destination.messageReceived(message.teleporterMessageId)).toBe(true);
  const last = decodeFunctionResult({ abi: receiverAbi, functionName: 'lastMessage', data: await call(to, net.receivers[to.blockchainId]!, encodeFunctionData({ abi: receiverAbi, functionName: 'lastMessage' })) });
  expect(new TextDecoder().decode(Buffer.from(last.slice(2), 'hex'))).toBe(text);
  // Delivered again: the messenger reverts, and messageReceived says it is done.
  const again = await destination.deliver(message, signed, { pending: [], record: async () => undefined });
  expect(again.kind).toBe('delivered-by-other');
  expect(lows).toEqual([]);
  console.log(`${from.name} → ${to.name}: gas limit ${recorded.at(-1)!.gasLimit}, used ${outcome.gasUsed}`);
}

/** The TeleporterMessage's nonce: the first word of its tuple (after the offset word) in the AddressedCall payload. */
function messageNonce(message: SourceMessage): bigint {
  const payload = parsePayload(parseUnsignedMessage(hexToBytes(message.unsignedMessage)).payload);
  if (payload.type !== 'AddressedCall') throw new Error('not an AddressedCall');
  return decodeTeleporterMessage(payload.payload)!.messageNonce;
}

/** A TCP relay to `target` whose connections can be cut, to drop a WebSocket for real. */
async function cuttableProxy(target: string): Promise<{ url: string; cut(): void; close(): void }> {
  const { hostname, port, pathname } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${address.port}${pathname}`,
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () => server.close(),
  };
}

describe('the relayer’s EVM source and destination on the real chains', () => {
  it('C-Chain → L1: seen live and by range with the messenger’s own ID, delivered with a predicate the L1 accepts', async () => {
    await relayOnce(cChain, l1, 'warpgate relayer evm: C-Chain to L1');
  });

  it('L1 → C-Chain: the same the other way', async () => {
    await relayOnce(l1, cChain, 'warpgate relayer evm: L1 to C-Chain');
  });

  it('a burst of messages delivered concurrently by two keys, once each, even after another transaction used one key’s nonce', async () => {
    const count = 12;
    const data = (i: number) =>
      encodeFunctionData({
        abi: receiverAbi,
        functionName: 'sendMessage',
        args: [idHex(l1.blockchainId), net.receivers[l1.blockchainId]!, 100_000n, [], bytesTo0xHex(new TextEncoder().encode(`burst ${i}`)) as Hex],
      });
    const source = createEvmSource(chainOf(cChain));
    const first = await source.head();
    for (let i = 0; i < count; i++) {
      const receipt = await sendTransaction(cChain.rpcUrl, cChain.evmChainId, net.funded[2]!, { to: net.receivers[cChain.blockchainId]!, data: data(i), gas: 1_000_000n });
      expect(receipt.status).toBe('0x1');
    }
    const last = await source.head();
    await acceptedEverywhere(net, cChain.alias, BigInt(last));
    const messages = (await source.blocksInRange(first + 1, last)).flatMap((b) => b.messages);
    expect(messages).toHaveLength(count);
    const destination = createEvmDestination(chainOf(l1), { privateKeys: [net.funded[0]!.privateKey, net.funded[3]!.privateKey], maxFeePerGasCap: 10_000_000_000_000n });
    // Someone else spends from funded[0] first: our local nonce count must resynchronise.
    await destination.deliver(messages[0]!, (await sign(l1, messages[0]!.unsignedMessage)).signed, { pending: [], record: async () => undefined });
    await sendTransaction(l1.rpcUrl, l1.evmChainId, net.funded[0]!, { to: net.funded[0]!.address, data: '0x', gas: 21_000n });
    const recorded = new Map<string, Submission[]>();
    const outcomes = await Promise.all(
      messages.slice(1).map(async (m) => {
        const { signed } = await sign(l1, m.unsignedMessage);
        return destination.deliver(m, signed, { pending: [], record: async (s) => void recorded.set(m.warpMessageId, [...(recorded.get(m.warpMessageId) ?? []), s]) });
      }),
    );
    expect(outcomes.map((o) => o.kind)).toEqual(messages.slice(1).map(() => 'delivered'));
    for (const m of messages) expect(await destination.messageReceived(m.teleporterMessageId)).toBe(true);
    const senders = new Set([...recorded.values()].flat().map((s) => s.from));
    expect(senders).toEqual(new Set([net.funded[0]!.address.toLowerCase(), net.funded[3]!.address.toLowerCase()]));
  });

  it('a WebSocket cut under a live subscription is reported once as a drop', async () => {
    const proxy = await cuttableProxy(net.l1.wsUrl);
    try {
      const source = createEvmSource({ ...chainOf(l1), wsUrl: proxy.url });
      const drops: Error[] = [];
      const blocks: SourceBlock[] = [];
      const unsubscribe = source.subscribe({ onBlock: (b) => blocks.push(b), onDrop: (e) => drops.push(e) });
      await new Promise((r) => setTimeout(r, 1_000));
      proxy.cut();
      await waitFor('the drop', async () => (drops.length > 0 ? true : undefined), 30_000, 100);
      await new Promise((r) => setTimeout(r, 500));
      expect(drops).toHaveLength(1);
      unsubscribe();
    } finally {
      proxy.close();
    }
  });
});
