import { keccak256, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { teleporterMessageId } from '../../../src/relayer/decode.js';
import { decodeSendWarpMessageLog } from '../../../src/relayer/evm/decode.js';
import { blocksOfLogs } from '../../../src/relayer/evm/source.js';
import { bytesTo0xHex, encodeAddressedCall, hexToBytes, idToString, newUnsignedMessage } from '../../../src/warp/index.js';
import { DESTINATION_ID, MESSENGER, SOURCE_CB58, SOURCE_ID, sendWarpLog, teleporterMessage, unsignedOf } from './fixtures.js';

const context = { blockchainId: SOURCE_ID, teleporterAddress: MESSENGER };
const asLog = (raw: ReturnType<typeof sendWarpLog>) => ({ ...raw, topics: raw.topics as [Hex, ...Hex[]], blockNumber: BigInt(raw.blockNumber!), logIndex: Number(raw.logIndex) });

/** Teleporter v1's calculateMessageID, word by word: keccak256(messenger ‖ source ‖ destination ‖ nonce), each left-padded to 32 bytes. */
function referenceId(messenger: string, source: Uint8Array, destination: Uint8Array, nonce: bigint): Hex {
  const words = messenger.slice(2).padStart(64, '0') + bytesTo0xHex(source).slice(2) + bytesTo0xHex(destination).slice(2) + nonce.toString(16).padStart(64, '0');
  return keccak256(`0x${words}`);
}

describe('decoding SendWarpMessage logs of the messenger', () => {
  it('reads every field of a Teleporter message and computes its Warp and Teleporter IDs', () => {
    const tm = teleporterMessage({
      allowedRelayerAddresses: [new Uint8Array(20).fill(0x33)],
      receipts: [{ receivedMessageNonce: 1n, relayerRewardAddress: new Uint8Array(20).fill(0x44) }],
      message: new Uint8Array(100).fill(1),
    });
    const unsigned = unsignedOf(tm);
    const decoded = decodeSendWarpMessageLog(asLog(sendWarpLog(unsigned, { block: 12, logIndex: 3 })), context);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    const m = decoded.message;
    expect(m.warpMessageId).toBe(bytesTo0xHex(unsigned.id));
    expect(m.teleporterMessageId).toBe(referenceId(MESSENGER, SOURCE_ID, DESTINATION_ID, 5n));
    expect(m.sourceBlockchainId).toBe(SOURCE_CB58);
    expect(m.destinationBlockchainId).toBe(idToString(DESTINATION_ID));
    expect(m.unsignedMessage).toBe(bytesTo0xHex(unsigned.bytes));
    expect(m.blockNumber).toBe(12);
    expect(m.logIndex).toBe(3);
    expect(m.originSenderAddress).toBe(`0x${'11'.repeat(20)}`);
    expect(m.destinationAddress).toBe(`0x${'22'.repeat(20)}`);
    expect(m.requiredGasLimit).toBe(100_000n);
    expect(m.allowedRelayerAddresses).toEqual([`0x${'33'.repeat(20)}`]);
    expect(m.receiptCount).toBe(1);
    expect(m.payloadBytes).toBe(100);
  });

  it('the Teleporter ID depends on the messenger, both chains and the nonce', () => {
    const base = teleporterMessageId(MESSENGER, SOURCE_ID, DESTINATION_ID, 1n);
    expect(base).toBe(referenceId(MESSENGER, SOURCE_ID, DESTINATION_ID, 1n));
    expect(teleporterMessageId(MESSENGER, SOURCE_ID, DESTINATION_ID, 2n)).not.toBe(base);
    expect(teleporterMessageId(`0x${'12'.repeat(20)}`, SOURCE_ID, DESTINATION_ID, 1n)).not.toBe(base);
    expect(teleporterMessageId(MESSENGER, DESTINATION_ID, SOURCE_ID, 1n)).not.toBe(base);
  });

  it('refuses logs that do not add up, saying why', () => {
    const unsigned = unsignedOf(teleporterMessage());
    const reason = (log: ReturnType<typeof sendWarpLog>) => {
      const d = decodeSendWarpMessageLog(asLog(log), context);
      return d.ok ? 'ok' : d.reason;
    };
    expect(reason(sendWarpLog(unsigned, { block: 1, logIndex: 0, sender: `0x${'99'.repeat(20)}` }))).toMatch(/not the messenger/);
    expect(reason(sendWarpLog(unsigned, { block: 1, logIndex: 0, messageId: `0x${'00'.repeat(32)}` }))).toMatch(/not the sha256/);
    expect(reason(sendWarpLog(unsignedOf(teleporterMessage(), { source: DESTINATION_ID }), { block: 1, logIndex: 0 }))).toMatch(/another source chain/);
    expect(reason(sendWarpLog(unsignedOf(teleporterMessage(), { sender: `0x${'99'.repeat(20)}` }), { block: 1, logIndex: 0 }))).toMatch(/AddressedCall's source/);
    const notTeleporter = newUnsignedMessage(88888, SOURCE_ID, encodeAddressedCall(hexToBytes(MESSENGER), new TextEncoder().encode('plain bytes')));
    expect(reason(sendWarpLog(notTeleporter, { block: 1, logIndex: 0 }))).toMatch(/not a TeleporterMessage/);
    const log = sendWarpLog(unsigned, { block: 1, logIndex: 0 });
    expect(reason({ ...log, data: '0x1234' })).toMatch(/not a SendWarpMessage log/);
  });

  it('groups logs into ascending blocks with messages in log order, skipping bad ones with a report', () => {
    const a = unsignedOf(teleporterMessage({ messageNonce: 1n }));
    const b = unsignedOf(teleporterMessage({ messageNonce: 2n }));
    const c = unsignedOf(teleporterMessage({ messageNonce: 3n }));
    const invalid: string[] = [];
    const blocks = blocksOfLogs(
      [
        sendWarpLog(c, { block: 9, logIndex: 0 }),
        sendWarpLog(b, { block: 7, logIndex: 4 }),
        sendWarpLog(a, { block: 7, logIndex: 1 }),
        sendWarpLog(a, { block: 8, logIndex: 0, sender: `0x${'99'.repeat(20)}` }),
      ],
      context,
      (d) => invalid.push(`${d.blockNumber}: ${d.reason}`),
    );
    expect(blocks.map((bl) => [bl.number, bl.messages.map((m) => m.logIndex)])).toEqual([
      [7, [1, 4]],
      [9, [0]],
    ]);
    expect(invalid).toEqual([expect.stringMatching(/^8: .*not the messenger/)]);
  });
});
