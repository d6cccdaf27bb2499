// Teleporter messages, their SendWarpMessage logs and signed forms, built with src/warp's
// encoders, for the EVM side's unit tests.
import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import {
  bytesTo0xHex,
  encodeAddressedCall,
  encodeSignedMessage,
  encodeSigners,
  encodeTeleporterMessage,
  hexToBytes,
  idToString,
  newUnsignedMessage,
  type TeleporterMessage,
} from '../../../src/warp/index.js';
import { SEND_WARP_MESSAGE_EVENT, WARP_PRECOMPILE_ADDRESS } from '../../../src/relayer/evm/abi.js';
import { decodeSendWarpMessageLog } from '../../../src/relayer/evm/decode.js';
import type { SourceMessage } from '../../../src/relayer/ports.js';
import type { RpcLog } from '../../../src/relayer/evm/decode.js';

export const SOURCE_ID = new Uint8Array(32).fill(7);
export const DESTINATION_ID = new Uint8Array(32).fill(9);
export const SOURCE_CB58 = idToString(SOURCE_ID);
export const MESSENGER: Hex = '0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf';

export function teleporterMessage(overrides: Partial<TeleporterMessage> = {}): TeleporterMessage {
  return {
    messageNonce: 5n,
    originSenderAddress: new Uint8Array(20).fill(0x11),
    destinationBlockchainID: DESTINATION_ID,
    destinationAddress: new Uint8Array(20).fill(0x22),
    requiredGasLimit: 100_000n,
    allowedRelayerAddresses: [],
    receipts: [],
    message: new TextEncoder().encode('hello'),
    ...overrides,
  };
}

export function unsignedOf(m: TeleporterMessage, opts: { source?: Uint8Array; sender?: Hex } = {}) {
  return newUnsignedMessage(88888, opts.source ?? SOURCE_ID, encodeAddressedCall(hexToBytes(opts.sender ?? MESSENGER), encodeTeleporterMessage(m)));
}

export function sendWarpLog(
  unsigned: { bytes: Uint8Array; id: Uint8Array },
  at: { block: number; logIndex: number; sender?: Hex; messageId?: Hex; blockHash?: Hex },
): RpcLog {
  const topics = encodeEventTopics({
    abi: [SEND_WARP_MESSAGE_EVENT],
    eventName: 'SendWarpMessage',
    args: { sender: at.sender ?? MESSENGER, messageID: at.messageId ?? (bytesTo0xHex(unsigned.id) as Hex) },
  }) as Hex[];
  return {
    topics,
    data: encodeAbiParameters([{ type: 'bytes' }], [bytesTo0xHex(unsigned.bytes) as Hex]),
    blockNumber: `0x${at.block.toString(16)}`,
    blockHash: at.blockHash ?? (`0x${at.block.toString(16).padStart(64, 'b')}` as Hex),
    transactionHash: `0x${(at.block * 100 + at.logIndex).toString(16).padStart(64, 'a')}`,
    logIndex: `0x${at.logIndex.toString(16)}`,
  };
}

export const WARP_LOG_ADDRESS = WARP_PRECOMPILE_ADDRESS;

/** A SourceMessage as the source reports it, and the message signed by `signers` validators. */
export function signedFixture(opts: { signers?: number; message?: Partial<TeleporterMessage> } = {}): { message: SourceMessage; signed: Hex } {
  const unsigned = unsignedOf(teleporterMessage(opts.message));
  const decoded = decodeSendWarpMessageLog(
    { ...sendWarpLog(unsigned, { block: 1, logIndex: 0 }), blockNumber: 1n, logIndex: 0 } as never,
    { blockchainId: SOURCE_ID, teleporterAddress: MESSENGER },
  );
  if (!decoded.ok) throw new Error(decoded.reason);
  const indices = Array.from({ length: opts.signers ?? 3 }, (_, i) => i);
  const signed = encodeSignedMessage(unsigned, encodeSigners(indices), new Uint8Array(96).fill(0xab));
  return { message: decoded.message, signed: bytesTo0xHex(signed) as Hex };
}
