import { decodeFunctionData, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createEvmDestination, type EvmDestinationOptions } from '../../../src/relayer/evm/destination.js';
import { TELEPORTER_MESSENGER_ABI, WARP_PRECOMPILE_ADDRESS } from '../../../src/relayer/evm/abi.js';
import { unpackPredicate } from '../../../src/relayer/evm/predicate.js';
import type { Submission } from '../../../src/relayer/ports.js';
import { hexToBytes, idToString } from '../../../src/warp/index.js';
import { FakeNode, RpcError } from './fake-node.js';
import { DESTINATION_ID, MESSENGER, signedFixture } from './fixtures.js';

const KEY1 = `0x${'11'.repeat(32)}` as const;
const KEY2 = `0x${'22'.repeat(32)}` as const;
const ADDRESS1 = privateKeyToAccount(KEY1).address.toLowerCase();
const ADDRESS2 = privateKeyToAccount(KEY2).address.toLowerCase();
const chain = { blockchainId: idToString(DESTINATION_ID), rpcUrl: 'http://127.0.0.1:1/rpc', teleporterAddress: MESSENGER };

function setup(options: Partial<EvmDestinationOptions> = {}) {
  const node = new FakeNode();
  const destination = createEvmDestination(chain, {
    privateKeys: [KEY1], maxFeePerGasCap: 500_000_000_000n, receiptTimeoutMs: 200, pollIntervalMs: 10, transport: node.transport(), ...options,
  });
  const recorded: Submission[] = [];
  const record = async (s: Submission) => {
    // Recorded before the node has seen it.
    expect(node.sent.some((tx) => tx.hash === s.txHash)).toBe(false);
    recorded.push(s);
  };
  return { node, destination, recorded, record };
}

describe('an EVM destination delivers', () => {
  it('an EIP-1559 receiveCrossChainMessage carrying the signed message as Warp predicate 0, recorded before broadcast', async () => {
    const { node, destination, recorded, record } = setup();
    const { message, signed } = signedFixture({ signers: 4 });
    const outcome = await destination.deliver(message, signed, { pending: [], record });
    expect(outcome.kind).toBe('delivered');
    expect(node.sent).toHaveLength(1);
    const tx = node.sent[0]!;
    expect(recorded.map((s) => s.txHash)).toEqual([tx.hash]);
    expect(outcome).toMatchObject({ txHash: tx.hash });
    expect(tx.from).toBe(ADDRESS1);
    const call = decodeFunctionData({ abi: TELEPORTER_MESSENGER_ABI, data: tx.data });
    expect(call).toEqual({ functionName: 'receiveCrossChainMessage', args: [0, privateKeyToAccount(KEY1).address] });
    expect(tx.accessList).toHaveLength(1);
    expect(tx.accessList[0]!.address.toLowerCase()).toBe(WARP_PRECOMPILE_ADDRESS);
    expect(unpackPredicate(tx.accessList[0]!.storageKeys as Hex[])).toEqual(hexToBytes(signed));
    expect(recorded[0]).toMatchObject({ from: ADDRESS1, nonce: 0, gasLimit: tx.gas, maxFeePerGas: tx.maxFeePerGas });
    // 2 × base fee + tip.
    expect(tx.maxFeePerGas).toBe(2n * node.baseFee + node.tip);
  });

  it('replaces a slow transaction at the same nonce with fees raised by at least 12.5%, recording each', async () => {
    const { node, destination, recorded, record } = setup();
    node.autoMine = false;
    const { message, signed } = signedFixture();
    const delivering = destination.deliver(message, signed, { pending: [], record });
    while (node.sent.length < 3) await new Promise((r) => setTimeout(r, 20));
    const [first, second, third] = node.sent;
    node.mine((tx) => tx.hash === third!.hash);
    const outcome = await delivering;
    expect(outcome).toMatchObject({ kind: 'delivered', txHash: third!.hash });
    expect(new Set(node.sent.map((tx) => tx.nonce))).toEqual(new Set([0]));
    expect(second!.maxFeePerGas * 1000n).toBeGreaterThanOrEqual(first!.maxFeePerGas * 1125n);
    expect(second!.maxPriorityFeePerGas * 1000n).toBeGreaterThanOrEqual(first!.maxPriorityFeePerGas * 1125n);
    expect(recorded.map((s) => s.txHash).slice(0, 3)).toEqual([first!.hash, second!.hash, third!.hash]);
  });

  it('stops raising at the cap and gives the message back for a later retry, its submission still pending', async () => {
    const cap = 2n * 25_000_000_000n + 1_000_000_000n + 5_000_000_000n;
    const { node, destination, record } = setup({ maxFeePerGasCap: cap, waitsAtCap: 1 });
    node.autoMine = false;
    const { message, signed } = signedFixture();
    const outcome = await destination.deliver(message, signed, { pending: [], record });
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/fee cap/) });
    expect(node.sent.every((tx) => tx.maxFeePerGas <= cap)).toBe(true);
  });

  it('resumes a previous run’s submission: replaces it at its nonce, and sends nothing at a new one', async () => {
    const first = setup();
    first.node.autoMine = false;
    const { message, signed } = signedFixture();
    const stop = new AbortController();
    const delivering = first.destination.deliver(message, signed, { pending: [], record: first.record, signal: stop.signal });
    while (first.node.sent.length < 1) await new Promise((r) => setTimeout(r, 5));
    stop.abort(new Error('killed'));
    await expect(delivering).rejects.toThrow();
    // A new process over the same node: its nonce sequence starts at the pending count.
    const node = first.node;
    node.autoMine = true;
    const again = createEvmDestination(chain, { privateKeys: [KEY1], maxFeePerGasCap: 500_000_000_000n, receiptTimeoutMs: 200, pollIntervalMs: 10, transport: node.transport() });
    const recorded: Submission[] = [];
    const outcome = await again.deliver(message, signed, { pending: first.recorded, record: async (s) => void recorded.push(s) });
    expect(outcome.kind).toBe('delivered');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.nonce).toBe(first.recorded[0]!.nonce);
    expect(recorded[0]!.maxFeePerGas * 1000n).toBeGreaterThanOrEqual(first.recorded.at(-1)!.maxFeePerGas * 1125n);
    // A second message now takes the next nonce, not the resumed one.
    const other = signedFixture({ message: { messageNonce: 6n } });
    await again.deliver(other.message, other.signed, { pending: [], record: async () => undefined });
    expect(node.sent.at(-1)!.nonce).toBe(1);
  });

  it('a resumed submission that was mined is the outcome, with nothing sent', async () => {
    const { node, destination, recorded, record } = setup();
    const { message, signed } = signedFixture();
    await destination.deliver(message, signed, { pending: [], record });
    const again = createEvmDestination(chain, { privateKeys: [KEY1], maxFeePerGasCap: 500_000_000_000n, transport: node.transport() });
    const sent = node.sent.length;
    const outcome = await again.deliver(message, signed, { pending: recorded, record: async () => expect.unreachable() });
    expect(outcome).toMatchObject({ kind: 'delivered', txHash: recorded[0]!.txHash });
    expect(node.sent).toHaveLength(sent);
  });

  it('a reverted delivery is delivered-by-other when messageReceived is true, else failed', async () => {
    const { node, destination, record } = setup();
    node.revert = true;
    const { message, signed } = signedFixture();
    expect((await destination.deliver(message, signed, { pending: [], record })).kind).toBe('failed');
    node.received.add(message.teleporterMessageId);
    const other = signedFixture({ message: { messageNonce: 8n } });
    node.received.add(other.message.teleporterMessageId);
    expect(await destination.deliver(other.message, other.signed, { pending: [], record })).toMatchObject({ kind: 'delivered-by-other' });
    expect(await destination.messageReceived(message.teleporterMessageId)).toBe(true);
  });

  it('resynchronises on "nonce too low" and uses the chain’s next nonce', async () => {
    const { node, destination, record } = setup();
    const { message, signed } = signedFixture();
    await destination.deliver(message, signed, { pending: [], record }); // nonce 0
    node.minedNonce.set(ADDRESS1, 5); // someone else used the key meanwhile
    const other = signedFixture({ message: { messageNonce: 6n } });
    expect((await destination.deliver(other.message, other.signed, { pending: [], record })).kind).toBe('delivered');
    expect(node.sent.at(-1)!.nonce).toBe(5);
  });

  it('a refused or unpaid delivery hands its nonce back and reports the key’s low balance', async () => {
    const low: string[] = [];
    const { node, destination, record } = setup({ onLowBalance: (d) => low.push(`${d.address} ${d.balance} < ${d.needed}`) });
    node.balances.set(ADDRESS1, 1000n);
    const { message, signed } = signedFixture();
    const outcome = await destination.deliver(message, signed, { pending: [], record });
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/holds 1000 wei/) });
    expect(low).toEqual([expect.stringMatching(new RegExp(`^${ADDRESS1} 1000 < `))]);
    node.balances.delete(ADDRESS1);
    node.refusals.push(new RpcError('intrinsic gas too low'));
    expect(await destination.deliver(message, signed, { pending: [], record })).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/intrinsic gas too low/) });
    expect((await destination.deliver(message, signed, { pending: [], record })).kind).toBe('delivered');
    expect(node.sent.map((tx) => tx.nonce)).toEqual([0]); // nothing went out at a nonce before
  });

  it('broadcasts nothing when record refuses (a lost lease) or it is stopped, and the nonce is used by the next delivery', async () => {
    const { node, destination, record } = setup();
    const { message, signed } = signedFixture();
    await expect(destination.deliver(message, signed, { pending: [], record: async () => Promise.reject(new Error('lease lost')) })).rejects.toThrow('lease lost');
    // Stopped (SIGTERM) before anything went out.
    const stopping = new AbortController();
    node.request = ((original) => async (method: string, params: unknown[]) => {
      if (method === 'eth_maxPriorityFeePerGas') stopping.abort(new Error('stopping'));
      return original(method, params);
    })(node.request.bind(node));
    await expect(destination.deliver(message, signed, { pending: [], record, signal: stopping.signal })).rejects.toThrow('stopping');
    expect(node.sent).toEqual([]);
    expect((await destination.deliver(message, signed, { pending: [], record })).kind).toBe('delivered');
    expect(node.sent.map((tx) => tx.nonce)).toEqual([0]);
  });

  it('hands the message back, sending nothing, while the base fee is above the cap', async () => {
    const { node, destination, record } = setup({ maxFeePerGasCap: 10_000_000_000n });
    const { message, signed } = signedFixture();
    expect(await destination.deliver(message, signed, { pending: [], record })).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/base fee .* above the cap/) });
    expect(node.sent).toEqual([]);
  });

  it('bumps again when a replacement is refused as underpriced', async () => {
    const { node, destination, record } = setup();
    node.refusals.push(new RpcError('replacement transaction underpriced'));
    const { message, signed } = signedFixture();
    expect((await destination.deliver(message, signed, { pending: [], record })).kind).toBe('delivered');
    expect(node.sent[0]!.maxFeePerGas).toBeGreaterThan(2n * node.baseFee + node.tip);
  });

  it('spreads messages over its keys, each with its own nonces, and keeps to a message’s allowed relayers', async () => {
    const { node, destination, record } = setup({ privateKeys: [KEY1, KEY2] });
    node.autoMine = false;
    const a = signedFixture({ message: { messageNonce: 1n } });
    const b = signedFixture({ message: { messageNonce: 2n } });
    const onlyTwo = signedFixture({ message: { messageNonce: 3n, allowedRelayerAddresses: [hexToBytes(ADDRESS2)] } });
    const nobody = signedFixture({ message: { messageNonce: 4n, allowedRelayerAddresses: [new Uint8Array(20).fill(0x77)] } });
    const runs = [a, b, onlyTwo].map((m) => destination.deliver(m.message, m.signed, { pending: [], record }));
    while (node.sent.length < 3) await new Promise((r) => setTimeout(r, 5));
    node.autoMine = true;
    node.mine();
    expect((await Promise.all(runs)).map((o) => o.kind)).toEqual(['delivered', 'delivered', 'delivered']);
    const byKey = (address: string) => node.sent.filter((tx) => tx.from === address).map((tx) => tx.nonce).sort();
    expect(byKey(ADDRESS1)).toEqual([0]);
    expect(byKey(ADDRESS2)).toEqual([0, 1]);
    expect(node.sent.find((tx) => tx.from === ADDRESS1)).toBeDefined();
    expect((await destination.deliver(nobody.message, nobody.signed, { pending: [], record })).kind).toBe('failed');
    expect(destination.relayerAddresses()).toEqual([ADDRESS1, ADDRESS2]);
  });

  it('refuses a signed message that is not the message, and bad keys without showing them', async () => {
    const { destination, record } = setup();
    const a = signedFixture({ message: { messageNonce: 1n } });
    const b = signedFixture({ message: { messageNonce: 2n } });
    expect(await destination.deliver(a.message, b.signed, { pending: [], record })).toMatchObject({ kind: 'failed', reason: expect.stringMatching(/not this message/) });
    const secret = `0x${'ff'.repeat(32)}`;
    let error: Error | undefined;
    try {
      createEvmDestination(chain, { privateKeys: [KEY1, secret], maxFeePerGasCap: 1n });
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(/key #2/);
    expect(error?.message).not.toContain('ff'.repeat(8));
    expect(() => createEvmDestination(chain, { privateKeys: [KEY1, KEY1], maxFeePerGasCap: 1n })).toThrow(/twice/);
  });

  it('reads the Warp rules and the balances, reporting keys under the threshold', async () => {
    const low: string[] = [];
    const { node, destination } = setup({ lowBalanceWei: 10n ** 18n, onLowBalance: (d) => low.push(d.address) });
    node.chainConfig = { graniteTimestamp: 0, warpConfig: { blockTimestamp: 0, quorumNumerator: 0, requirePrimaryNetworkSigners: true } };
    expect(await destination.warpRules()).toEqual({ quorumNumerator: 67, requirePrimaryNetworkSigners: true });
    node.balances.set(ADDRESS1, 5n);
    expect(await destination.balances()).toEqual([{ address: ADDRESS1, balance: 5n }]);
    expect(low).toEqual([ADDRESS1]);
  });
});
