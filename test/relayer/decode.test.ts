import { encodeAbiParameters, keccak256, parseAbiParameters } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeSourceMessage, teleporterMessageId } from '../../src/relayer/decode.js';
import { RelayerError } from '../../src/relayer/errors.js';
import { parseId } from '../../src/warp/index.js';
import { CHAIN_A, CHAIN_B, MESSENGER, RECEIVER, SENDER, teleporterMessage } from './fakes.js';

describe('decoding a Teleporter message from its unsigned Warp bytes', () => {
  it('computes the Teleporter message ID as TeleporterMessenger v1 does (checked with viem)', () => {
    const source = parseId(CHAIN_A);
    const destination = parseId(CHAIN_B);
    const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}` as const;
    const expected = keccak256(encodeAbiParameters(parseAbiParameters('address, bytes32, bytes32, uint256'), [MESSENGER, hex(source), hex(destination), 42n]));
    expect(teleporterMessageId(MESSENGER, source, destination, 42n)).toBe(expected);
  });

  it('reads every field the relayer routes and screens by', () => {
    const m = teleporterMessage({ nonce: 42n, requiredGasLimit: 123_456n, allowedRelayers: [RECEIVER], payload: 'six b!' });
    expect(m).toMatchObject({
      sourceBlockchainId: CHAIN_A,
      destinationBlockchainId: CHAIN_B,
      originSenderAddress: SENDER,
      destinationAddress: RECEIVER,
      requiredGasLimit: 123_456n,
      allowedRelayerAddresses: [RECEIVER],
      receiptCount: 0,
      payloadBytes: 6,
    });
    expect(m.teleporterMessageId).toBe(teleporterMessageId(MESSENGER, parseId(CHAIN_A), parseId(CHAIN_B), 42n));
    expect(decodeSourceMessage(m.unsignedMessage).warpMessageId).toBe(m.warpMessageId);
  });

  it('refuses bytes that are not a Teleporter message with a typed error', () => {
    for (const bad of ['0x', '0x0000', `0x0000${'00'.repeat(60)}`] as const) {
      expect(() => decodeSourceMessage(bad)).toThrow(RelayerError);
    }
  });
});
