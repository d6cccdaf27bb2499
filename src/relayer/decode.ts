// An unsigned Warp message's bytes as the relayer's SourceMessage: the AddressedCall from the
// Teleporter messenger, the TeleporterMessage inside it, and the Teleporter message ID as
// TeleporterMessenger v1 computes it (calculateMessageID: keccak256 of abi.encode(messenger,
// sourceBlockchainID, destinationBlockchainID, messageNonce)). The manual relay of an unsigned
// message uses it; a source that only has the log's bytes can too.
import * as AbiParameters from 'ox/AbiParameters';
import * as Hash from 'ox/Hash';
import { bytesTo0xHex, decodeTeleporterMessage, hexToBytes, idToString, parsePayload, parseUnsignedMessage } from '../warp/index.js';
import type { TeleporterMessage } from '../warp/teleporter.js';
import type { UnsignedMessage } from '../warp/unsigned-message.js';
import { RelayerError } from './errors.js';
import type { Hex, SourceMessage } from './ports.js';

const MESSAGE_ID_ABI = AbiParameters.from(['address', 'bytes32', 'bytes32', 'uint256']);

/** Where a message's log was, when known (a manual relay of bare bytes has no log). */
interface LogPosition {
  readonly blockNumber: number;
  readonly blockHash: Hex;
  readonly transactionHash: Hex;
  readonly logIndex: number;
}

const ZERO_HASH = `0x${'00'.repeat(32)}` as Hex;
const NO_POSITION: LogPosition = { blockNumber: 0, blockHash: ZERO_HASH, transactionHash: ZERO_HASH, logIndex: 0 };

const hex = (bytes: Uint8Array): Hex => bytesTo0xHex(bytes).toLowerCase() as Hex;

/** Teleporter v1's ID of the message with `nonce` sent by `messenger` from one chain to another. */
export function teleporterMessageId(messenger: Hex, sourceBlockchainId: Uint8Array, destinationBlockchainId: Uint8Array, nonce: bigint): Hex {
  const encoded = AbiParameters.encode(MESSAGE_ID_ABI, [messenger, hex(sourceBlockchainId), hex(destinationBlockchainId), nonce]);
  return Hash.keccak256(encoded).toLowerCase() as Hex;
}

/**
 * The SourceMessage an unsigned Warp message carries. Throws RelayerError('bad-message') when the
 * bytes are not an unsigned message whose AddressedCall holds a TeleporterMessage.
 */
export function decodeSourceMessage(unsignedMessage: Hex, position: LogPosition = NO_POSITION): SourceMessage {
  let parsed;
  try {
    parsed = parseUnsignedMessage(hexToBytes(unsignedMessage, 'unsignedMessage'));
  } catch (err) {
    throw new RelayerError('bad-message', `not an unsigned Warp message: ${(err as Error).message}`, { cause: err });
  }
  let payload;
  try {
    payload = parsePayload(parsed.payload);
  } catch (err) {
    throw new RelayerError('bad-message', `the Warp payload is not readable: ${(err as Error).message}`, { cause: err });
  }
  if (payload.type !== 'AddressedCall' || payload.sourceAddress.length !== 20) {
    throw new RelayerError('bad-message', 'the Warp payload is not an AddressedCall from a contract');
  }
  const teleporter = decodeTeleporterMessage(payload.payload);
  if (!teleporter) throw new RelayerError('bad-message', 'the AddressedCall does not carry a Teleporter message');
  return sourceMessageFrom(parsed, hex(payload.sourceAddress), teleporter, position);
}

/** The SourceMessage of an unsigned message already parsed, sent by `messenger` (both decoders end here). */
export function sourceMessageFrom(parsed: UnsignedMessage, messenger: Hex, teleporter: TeleporterMessage, position: LogPosition): SourceMessage {
  return {
    warpMessageId: hex(parsed.id),
    teleporterMessageId: teleporterMessageId(messenger, parsed.sourceChainId, teleporter.destinationBlockchainID, teleporter.messageNonce),
    sourceBlockchainId: idToString(parsed.sourceChainId),
    destinationBlockchainId: idToString(teleporter.destinationBlockchainID),
    unsignedMessage: hex(parsed.bytes),
    ...position,
    originSenderAddress: hex(teleporter.originSenderAddress),
    destinationAddress: hex(teleporter.destinationAddress),
    requiredGasLimit: teleporter.requiredGasLimit,
    allowedRelayerAddresses: teleporter.allowedRelayerAddresses.map(hex),
    receiptCount: teleporter.receipts.length,
    payloadBytes: teleporter.message.length,
  };
}

/** The AddressedCall's source address (the messenger) of a decoded message's unsigned bytes. */
export function messengerOf(unsignedMessage: Hex): Hex {
  const payload = parsePayload(parseUnsignedMessage(hexToBytes(unsignedMessage)).payload);
  if (payload.type !== 'AddressedCall') throw new RelayerError('bad-message', 'the Warp payload is not an AddressedCall');
  return hex(payload.sourceAddress);
}
