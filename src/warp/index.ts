// The byte-format layer's public API. Other modules import from here.
export { WarpFormatError } from './errors.js';
export { hexToBytes, bytesToHex, bytesTo0xHex, bytesEqual, concatBytes } from './hex.js';
export {
  cb58Encode,
  cb58Decode,
  idToString,
  parseId,
  parseCb58Id,
  nodeIdToString,
  parseNodeId,
  ID_LENGTH,
  NODE_ID_LENGTH,
  P_CHAIN_ID,
  PRIMARY_NETWORK_ID,
} from './cb58.js';
export { ByteReader, ByteWriter, CODEC_VERSION, MAX_PAYLOAD_BYTES } from './codec.js';
export { parseUnsignedMessage, newUnsignedMessage, type UnsignedMessage } from './unsigned-message.js';
export { encodeSigners, decodeSigners, MAX_SIGNER_INDEX } from './bitset.js';
export {
  parseSignedMessage,
  encodeSignedMessage,
  parseWarpMessage,
  BIT_SET_SIGNATURE_TYPE_ID,
  BLS_SIGNATURE_LENGTH,
  type SignedMessage,
  type WarpMessage,
} from './signed-message.js';
export {
  parsePayload,
  encodeHashPayload,
  encodeAddressedCall,
  encodePayload,
  HASH_PAYLOAD_TYPE_ID,
  ADDRESSED_CALL_TYPE_ID,
  type WarpPayload,
} from './payload.js';
export {
  parseL1Message,
  encodeL1Message,
  encodeConversionData,
  parseConversionData,
  conversionId,
  validationIdFromIndex,
  validationIdOfRegistration,
  newPChainMessage,
  parsePChainMessage,
  L1_MESSAGE_TYPE_IDS,
  BLS_PUBLIC_KEY_LENGTH,
  SHORT_ID_LENGTH,
  type L1Message,
  type SubnetToL1Conversion,
  type RegisterL1Validator,
  type L1ValidatorRegistration,
  type L1ValidatorWeight,
  type PChainOwner,
  type ConversionData,
  type ConversionValidator,
} from './l1-messages.js';
export {
  encodeL1ValidatorRegistrationJustification,
  decodeL1ValidatorRegistrationJustification,
  MAX_JUSTIFICATION_BYTES,
  type L1ValidatorRegistrationJustification,
} from './justification.js';
export { parseMessageInput, unwrapSendWarpMessageLogData } from './message-input.js';
export {
  describeWarpMessage,
  describeL1Message,
  describeTeleporterMessage,
  type WarpMessageDescription,
  type PayloadDescription,
  type L1MessageDescription,
  type IdDescription,
  type TeleporterMessageDescription,
} from './describe.js';
export {
  decodeTeleporterMessage,
  encodeTeleporterMessage,
  teleporterMessageOfPayload,
  TELEPORTER_MESSENGER_V1_ADDRESS,
  type TeleporterMessage,
  type TeleporterMessageReceipt,
} from './teleporter.js';
