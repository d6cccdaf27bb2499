// Teleporter end to end without a relayer: our messenger (interop/contracts, deployed by the
// harness at one address on both chains) sends a message, warpgate signs its Warp message at the
// destination's epoch height, and the test delivers it by hand as a relayer would
// (receiveCrossChainMessage(0, reward) with the signed message as Warp predicate 0). What the
// relayer of issue 37 will rely on: the message format warpgate decodes, Teleporter's message ID,
// `messageReceived`, one delivery per message, receipts, allowed relayers, failed executions,
// requiredGasLimit, and that only the messenger itself is trusted as the origin.
import { AbiFunction } from 'ox';
import { encodeAbiParameters, encodeFunctionData, parseEventLogs, stringToHex, type Address, type Hex, type TransactionReceipt } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import { bytesTo0xHex, hexToBytes, parsePayload, parseMessageInput, teleporterMessageOfPayload } from '../../src/warp/index.js';
import { postJson } from '../ops/helpers.js';
import { sendTransaction, sendWarpMessage, warpCheckInitCode, warpPredicate, WARP_PRECOMPILE } from './evm.js';
import { acceptedEverywhere, warpgateForThisFile } from './helpers.js';
import type { FundedKey } from './paths.js';
import {
  deliverByHand,
  epochHeight,
  messageReceived,
  messengerAbi,
  receiverState,
  sendTeleporterMessage,
  teleporterChains,
  teleporterMessageId,
  type SentMessage,
  type TeleporterChain,
} from './teleporter.js';

const net = inject('interopNetwork');
const warpgate = warpgateForThisFile(net);
const { cChain, l1 } = teleporterChains(net);
const [, sender, otherSender, allowedRelayer] = net.funded as [FundedKey, FundedKey, FundedKey, FundedKey];

/** Signs `logData` at the destination's epoch height with the L1's validators (they sign for both directions here). */
async function sign(destination: TeleporterChain, logData: Hex): Promise<{ signed: Uint8Array; height: number }> {
  const height = await epochHeight(destination);
  const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: logData, signingSubnetId: net.l1.subnetId, pChainHeight: height });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { signed: hexToBytes(res.body.signedMessage), height };
}

/**
 * Signs and delivers. The destination's epoch can end between the two (its height moves, and
 * with it the set it verifies against), as a relayer also finds: then it is signed and
 * delivered once more at the new epoch.
 */
async function signAndDeliver(destination: TeleporterChain, key: FundedKey, logData: Hex, options: { gas?: bigint } = {}): Promise<TransactionReceipt> {
  for (let attempt = 1; ; attempt++) {
    const { signed, height } = await sign(destination, logData);
    const receipt = await deliverByHand(destination, key, signed, options);
    if (receipt.status === 'success' || attempt === 2 || (await epochHeight(destination)) === height) return receipt;
  }
}

/** Per chain, a contract that reverts unless getVerifiedWarpMessage(0) says valid (evm.ts). */
const warpChecks = new Map<string, Promise<Hex>>();
function warpCheckOn(chain: TeleporterChain, key: FundedKey): Promise<Hex> {
  let check = warpChecks.get(chain.blockchainId);
  if (!check) {
    check = sendTransaction(chain.rpcUrl, chain.evmChainId, key, { data: warpCheckInitCode(), gas: 200_000n }).then((r) => {
      expect(r.status).toBe('0x1');
      return r.contractAddress!;
    });
    warpChecks.set(chain.blockchainId, check);
  }
  return check;
}

/**
 * The messenger refuses the delivery although the predicate is valid: the same signed message
 * carried to a contract that checks only the predicate is accepted. So the refusal is the
 * messenger's rule, not a signature the chain did not accept. (Re-signed once if the
 * destination's epoch moved meanwhile.)
 */
async function expectMessengerRefuses(destination: TeleporterChain, key: FundedKey, logData: Hex, options: { gas?: bigint } = {}): Promise<void> {
  const check = await warpCheckOn(destination, key);
  for (let attempt = 1; ; attempt++) {
    const { signed } = await sign(destination, logData);
    const refused = await deliverByHand(destination, key, signed, options);
    const predicate = await sendTransaction(destination.rpcUrl, destination.evmChainId, key, { to: check, data: '0x', gas: 500_000n, accessList: warpPredicate(signed) });
    if (predicate.status === '0x1' || attempt === 2) {
      expect(predicate.status, 'the predicate is valid').toBe('0x1');
      expect(refused.status, 'the messenger refused the delivery').toBe('reverted');
      return;
    }
  }
}

function eventsOf(receipt: TransactionReceipt, eventName: string): { args: Record<string, unknown> }[] {
  return parseEventLogs({ abi: messengerAbi, logs: receipt.logs.filter((l) => l.address.toLowerCase() !== WARP_PRECOMPILE), eventName }) as unknown as { args: Record<string, unknown> }[];
}

/** The message as warpgate's own decoder reads it from the log: an AddressedCall from the messenger carrying abi.encode(TeleporterMessage). */
function checkWarpgateDecodes(sent: SentMessage, source: TeleporterChain): void {
  const unsigned = parseMessageInput(sent.logData);
  expect(bytesTo0xHex(unsigned.sourceChainId)).toBe(source.blockchainIdHex);
  const payload = parsePayload(unsigned.payload);
  expect(payload.type).toBe('AddressedCall');
  if (payload.type !== 'AddressedCall') return;
  expect(bytesTo0xHex(payload.sourceAddress)).toBe(source.messenger);
  const decoded = teleporterMessageOfPayload(payload);
  expect(decoded, 'warpgate decodes it as a TeleporterMessage').not.toBeNull();
  expect(decoded!.messageNonce).toBe(sent.message.messageNonce);
  expect(bytesTo0xHex(decoded!.originSenderAddress)).toBe(sent.message.originSenderAddress.toLowerCase());
  expect(bytesTo0xHex(decoded!.destinationBlockchainID)).toBe(sent.message.destinationBlockchainID);
  expect(bytesTo0xHex(decoded!.message)).toBe(sent.message.message);
  expect(decoded!.receipts.map((r) => r.receivedMessageNonce)).toEqual(sent.message.receipts.map((r) => r.receivedMessageNonce));
}

/** The C-Chain → L1 message of the first test, acknowledged by a receipt in the second. */
let first: { sent: SentMessage; rewardAddress: Address } | undefined;

async function sendDeliverAndCheck(source: TeleporterChain, destination: TeleporterChain, key: FundedKey, text: string): Promise<SentMessage> {
  const payload = stringToHex(`${text} ${Date.now()}`);
  const before = await receiverState(destination, source);
  const sent = await sendTeleporterMessage(net, source, key, { destination, message: payload });
  expect(sent.message).toMatchObject({ originSenderAddress: key.address, destinationBlockchainID: destination.blockchainIdHex, destinationAddress: expect.stringMatching(new RegExp(destination.receiver, 'i')), message: payload });
  expect(sent.message.messageNonce).toBeGreaterThan(0n);
  expect(sent.messageId, "Teleporter v1's message ID").toBe(teleporterMessageId(source.messenger, source, destination, sent.message.messageNonce));
  checkWarpgateDecodes(sent, source);
  expect(await messageReceived(destination, sent.messageId)).toBe(false);

  const receipt = await signAndDeliver(destination, key, sent.logData);
  expect(receipt.status, `${destination.name} accepted the delivery`).toBe('success');
  const [received] = eventsOf(receipt, 'ReceiveCrossChainMessage');
  expect(received?.args).toMatchObject({ messageID: sent.messageId, sourceBlockchainID: source.blockchainIdHex, deliverer: key.address, rewardRedeemer: key.address });
  expect(eventsOf(receipt, 'MessageExecuted')).toHaveLength(1);
  expect(await messageReceived(destination, sent.messageId)).toBe(true);
  const after = await receiverState(destination, source);
  expect(after).toEqual({ lastMessage: payload, lastOriginSenderAddress: key.address, lastSourceBlockchainID: source.blockchainIdHex, receivedFrom: before.receivedFrom + 1n });

  // Delivered once only: a second delivery of the same message reverts and the receiver gets nothing more.
  await expectMessengerRefuses(destination, key, sent.logData);
  expect((await receiverState(destination, source)).receivedFrom).toBe(before.receivedFrom + 1n);
  return sent;
}

describe('Teleporter through our messenger, delivered by hand', () => {
  it('C-Chain → L1: sent from a funded key, signed by warpgate, delivered once: the receiver has the payload, messageReceived is true', async () => {
    const sent = await sendDeliverAndCheck(cChain, l1, sender, 'warpgate teleporter: C-Chain to L1');
    first = { sent, rewardAddress: sender.address };
  });

  it('L1 → C-Chain: delivered once; it carries the receipt of the C-Chain → L1 message, which the C-Chain then forgets', async () => {
    const sent = await sendDeliverAndCheck(l1, cChain, otherSender, 'warpgate teleporter: L1 to C-Chain');
    expect(first, 'the C-Chain → L1 test ran first').toBeDefined();
    // The L1 owed the C-Chain a receipt for the first message; this message carried it back.
    expect(sent.message.receipts).toContainEqual({ receivedMessageNonce: first!.sent.message.messageNonce, relayerRewardAddress: first!.rewardAddress });
    const hash = await cChain.client.readContract({ address: cChain.messenger, abi: messengerAbi, functionName: 'getMessageHash', args: [first!.sent.messageId] });
    expect(hash, 'acknowledged: the C-Chain no longer keeps the first message for retries').toBe(`0x${'0'.repeat(64)}`);
  });

  it('only an allowed relayer may deliver, and a receiver that fails still leaves the message received (stored for a retry)', async () => {
    const before = await receiverState(l1, cChain);
    const sent = await sendTeleporterMessage(net, cChain, sender, { destination: l1, message: stringToHex('fail'), allowedRelayerAddresses: [allowedRelayer.address] });
    // A relayer not in allowedRelayerAddresses is refused.
    await expectMessengerRefuses(l1, sender, sent.logData);
    expect(await messageReceived(l1, sent.messageId)).toBe(false);

    const receipt = await signAndDeliver(l1, allowedRelayer, sent.logData);
    expect(receipt.status).toBe('success');
    expect(eventsOf(receipt, 'MessageExecutionFailed')).toHaveLength(1);
    expect(await messageReceived(l1, sent.messageId)).toBe(true);
    const failedHash = await l1.client.readContract({ address: l1.messenger, abi: messengerAbi, functionName: 'receivedFailedMessageHashes', args: [sent.messageId] });
    expect(failedHash).not.toBe(`0x${'0'.repeat(64)}`);
    expect((await receiverState(l1, cChain)).receivedFrom).toBe(before.receivedFrom);
  });

  it('a delivery with less gas left than requiredGasLimit reverts and leaves the message undelivered; with enough it is delivered', async () => {
    const sent = await sendTeleporterMessage(net, l1, otherSender, { destination: cChain, message: stringToHex('needs a million'), requiredGasLimit: 1_000_000n });
    await expectMessengerRefuses(cChain, otherSender, sent.logData, { gas: 700_000n });
    expect(await messageReceived(cChain, sent.messageId)).toBe(false);
    expect((await signAndDeliver(cChain, otherSender, sent.logData, { gas: 1_600_000n })).status).toBe('success');
    expect(await messageReceived(cChain, sent.messageId)).toBe(true);
  });

  it('a Teleporter-shaped Warp message that the messenger did not send (another origin) is refused', async () => {
    // funded[1] calls the precompile itself with a well-formed TeleporterMessage for the L1's
    // receiver: the Warp message is genuine and signed, but its origin is an EOA.
    const forged = encodeAbiParameters(
      [{ type: 'tuple', components: messageComponents() }],
      [{ messageNonce: 424242n, originSenderAddress: sender.address, destinationBlockchainID: l1.blockchainIdHex, destinationAddress: l1.receiver, requiredGasLimit: 300_000n, allowedRelayerAddresses: [], receipts: [], message: stringToHex('forged') }],
    );
    const receipt = await sendTransaction(cChain.rpcUrl, cChain.evmChainId, sender, { to: WARP_PRECOMPILE, data: AbiFunction.encodeData(sendWarpMessage, [forged]) });
    expect(receipt.status).toBe('0x1');
    await acceptedEverywhere(net, cChain.alias, BigInt(receipt.blockNumber));
    const logData = receipt.logs.find((l) => l.address.toLowerCase() === WARP_PRECOMPILE)!.data;
    const before = await receiverState(l1, cChain);
    await expectMessengerRefuses(l1, sender, logData);
    expect(await messageReceived(l1, teleporterMessageId(l1.messenger, cChain, l1, 424242n))).toBe(false);
    expect(await receiverState(l1, cChain)).toEqual(before);
  });

  it('sendCrossChainMessage refuses a fee: this messenger does not handle fee tokens', async () => {
    const data = encodeFunctionData({
      abi: messengerAbi,
      functionName: 'sendCrossChainMessage',
      args: [{ destinationBlockchainID: l1.blockchainIdHex, destinationAddress: l1.receiver, feeInfo: { feeTokenAddress: sender.address, amount: 1n }, requiredGasLimit: 1n, allowedRelayerAddresses: [], message: '0x' }],
    });
    await expect(cChain.client.call({ account: sender.address, to: cChain.messenger, data })).rejects.toThrow(/fees are not supported/);
  });
});

function messageComponents() {
  return [
    { type: 'uint256', name: 'messageNonce' },
    { type: 'address', name: 'originSenderAddress' },
    { type: 'bytes32', name: 'destinationBlockchainID' },
    { type: 'address', name: 'destinationAddress' },
    { type: 'uint256', name: 'requiredGasLimit' },
    { type: 'address[]', name: 'allowedRelayerAddresses' },
    { type: 'tuple[]', name: 'receipts', components: [{ type: 'uint256', name: 'receivedMessageNonce' }, { type: 'address', name: 'relayerRewardAddress' }] },
    { type: 'bytes', name: 'message' },
  ] as const;
}
