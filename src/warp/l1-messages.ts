// ACP-77 P-Chain messages (vms/platformvm/warp/message): the four L1 messages, the conversion
// data whose hash is a subnet's conversionID, and validation IDs. On the wire an L1 message is
// `0000 | typeID u32 | fields`, carried as the payload of an AddressedCall.
import { sha256 } from '@noble/hashes/sha2.js';
import { ID_LENGTH, NODE_ID_LENGTH, P_CHAIN_ID } from './cb58.js';
import { ByteReader, ByteWriter } from './codec.js';
import { WarpFormatError } from './errors.js';
import { bytesEqual } from './hex.js';
import { encodeAddressedCall, parsePayload } from './payload.js';
import { newUnsignedMessage, type UnsignedMessage } from './unsigned-message.js';

export const BLS_PUBLIC_KEY_LENGTH = 48;
/** ids.ShortID: a P-Chain address. */
export const SHORT_ID_LENGTH = 20;

export const L1_MESSAGE_TYPE_IDS = {
  SubnetToL1Conversion: 0,
  RegisterL1Validator: 1,
  L1ValidatorRegistration: 2,
  L1ValidatorWeight: 3,
} as const;

/** Who may spend a validator's remaining balance or disable it (secp256k1fx-style owners). */
export interface PChainOwner {
  threshold: number;
  /** 20-byte P-Chain addresses. */
  addresses: Uint8Array[];
}

export interface SubnetToL1Conversion {
  type: 'SubnetToL1Conversion';
  conversionId: Uint8Array;
}

export interface RegisterL1Validator {
  type: 'RegisterL1Validator';
  subnetId: Uint8Array;
  /** 20 bytes (encoded with a length prefix, unlike other node IDs). */
  nodeId: Uint8Array;
  /** 48-byte compressed BLS public key. */
  blsPublicKey: Uint8Array;
  /** Unix seconds after which the P-Chain refuses the registration. */
  expiry: bigint;
  remainingBalanceOwner: PChainOwner;
  disableOwner: PChainOwner;
  weight: bigint;
}

export interface L1ValidatorRegistration {
  type: 'L1ValidatorRegistration';
  validationId: Uint8Array;
  registered: boolean;
}

export interface L1ValidatorWeight {
  type: 'L1ValidatorWeight';
  validationId: Uint8Array;
  nonce: bigint;
  weight: bigint;
}

export type L1Message = SubnetToL1Conversion | RegisterL1Validator | L1ValidatorRegistration | L1ValidatorWeight;

const WHAT = 'L1Message';

function readOwner(r: ByteReader, field: string): PChainOwner {
  const threshold = r.u32(`${field}.threshold`);
  const n = r.count(`${field}.addresses`, SHORT_ID_LENGTH);
  const addresses: Uint8Array[] = [];
  for (let i = 0; i < n; i++) addresses.push(r.fixed(`${field}.addresses[${i}]`, SHORT_ID_LENGTH));
  return { threshold, addresses };
}

function writeOwner(w: ByteWriter, field: string, owner: PChainOwner): void {
  if (!owner || !Array.isArray(owner.addresses)) throw new WarpFormatError(`${WHAT}.${field}`, 'must have threshold and addresses');
  w.u32(`${field}.threshold`, owner.threshold).u32(`${field}.addresses.count`, owner.addresses.length);
  owner.addresses.forEach((a, i) => w.fixed(`${field}.addresses[${i}]`, a, SHORT_ID_LENGTH));
}

export function parseL1Message(bytes: Uint8Array): L1Message {
  const r = new ByteReader(bytes, WHAT);
  r.expectCodecVersion();
  const typeStart = r.offset;
  const typeId = r.u32('typeID');
  let msg: L1Message;
  switch (typeId) {
    case L1_MESSAGE_TYPE_IDS.SubnetToL1Conversion:
      msg = { type: 'SubnetToL1Conversion', conversionId: r.fixed('SubnetToL1Conversion.conversionID', ID_LENGTH) };
      break;
    case L1_MESSAGE_TYPE_IDS.RegisterL1Validator: {
      const subnetId = r.fixed('RegisterL1Validator.subnetID', ID_LENGTH);
      const nodeStart = r.offset;
      const nodeId = r.varBytes('RegisterL1Validator.nodeID', r.remaining);
      // avalanchego decodes any length here and rejects it later in Verify; a registration with
      // a node ID that is not 20 bytes can never be accepted, so it is refused up front.
      if (nodeId.length !== NODE_ID_LENGTH) {
        throw r.fail('RegisterL1Validator.nodeID', `must be ${NODE_ID_LENGTH} bytes, got ${nodeId.length}`, nodeStart);
      }
      msg = {
        type: 'RegisterL1Validator',
        subnetId,
        nodeId,
        blsPublicKey: r.fixed('RegisterL1Validator.blsPublicKey', BLS_PUBLIC_KEY_LENGTH),
        expiry: r.u64('RegisterL1Validator.expiry'),
        remainingBalanceOwner: readOwner(r, 'RegisterL1Validator.remainingBalanceOwner'),
        disableOwner: readOwner(r, 'RegisterL1Validator.disableOwner'),
        weight: r.u64('RegisterL1Validator.weight'),
      };
      break;
    }
    case L1_MESSAGE_TYPE_IDS.L1ValidatorRegistration:
      msg = {
        type: 'L1ValidatorRegistration',
        validationId: r.fixed('L1ValidatorRegistration.validationID', ID_LENGTH),
        registered: r.bool('L1ValidatorRegistration.registered'),
      };
      break;
    case L1_MESSAGE_TYPE_IDS.L1ValidatorWeight:
      msg = {
        type: 'L1ValidatorWeight',
        validationId: r.fixed('L1ValidatorWeight.validationID', ID_LENGTH),
        nonce: r.u64('L1ValidatorWeight.nonce'),
        weight: r.u64('L1ValidatorWeight.weight'),
      };
      break;
    default:
      throw r.fail('typeID', `is ${typeId}, not a known L1 message type (0-3)`, typeStart);
  }
  r.end();
  return msg;
}

export function encodeL1Message(msg: L1Message): Uint8Array {
  const w = new ByteWriter(WHAT, 256).codecVersion();
  switch (msg.type) {
    case 'SubnetToL1Conversion':
      w.u32('typeID', L1_MESSAGE_TYPE_IDS.SubnetToL1Conversion).fixed('SubnetToL1Conversion.conversionID', msg.conversionId, ID_LENGTH);
      break;
    case 'RegisterL1Validator':
      w.u32('typeID', L1_MESSAGE_TYPE_IDS.RegisterL1Validator)
        .fixed('RegisterL1Validator.subnetID', msg.subnetId, ID_LENGTH)
        .u32('RegisterL1Validator.nodeID.length', NODE_ID_LENGTH)
        .fixed('RegisterL1Validator.nodeID', msg.nodeId, NODE_ID_LENGTH)
        .fixed('RegisterL1Validator.blsPublicKey', msg.blsPublicKey, BLS_PUBLIC_KEY_LENGTH)
        .u64('RegisterL1Validator.expiry', msg.expiry);
      writeOwner(w, 'RegisterL1Validator.remainingBalanceOwner', msg.remainingBalanceOwner);
      writeOwner(w, 'RegisterL1Validator.disableOwner', msg.disableOwner);
      w.u64('RegisterL1Validator.weight', msg.weight);
      break;
    case 'L1ValidatorRegistration':
      w.u32('typeID', L1_MESSAGE_TYPE_IDS.L1ValidatorRegistration)
        .fixed('L1ValidatorRegistration.validationID', msg.validationId, ID_LENGTH)
        .bool('L1ValidatorRegistration.registered', msg.registered);
      break;
    case 'L1ValidatorWeight':
      w.u32('typeID', L1_MESSAGE_TYPE_IDS.L1ValidatorWeight)
        .fixed('L1ValidatorWeight.validationID', msg.validationId, ID_LENGTH)
        .u64('L1ValidatorWeight.nonce', msg.nonce)
        .u64('L1ValidatorWeight.weight', msg.weight);
      break;
    default:
      throw new WarpFormatError(`${WHAT}.type`, `is not a known L1 message type: ${String((msg as { type?: unknown }).type)}`);
  }
  return w.bytes();
}

// --- conversion data and validation IDs -------------------------------------------------------

/** One initial validator of a ConvertSubnetToL1Tx, as the conversionID hashes it. */
export interface ConversionValidator {
  nodeId: Uint8Array;
  blsPublicKey: Uint8Array;
  weight: bigint;
}

/** SubnetToL1ConversionData: what a ConvertSubnetToL1Tx commits to. */
export interface ConversionData {
  subnetId: Uint8Array;
  managerChainId: Uint8Array;
  managerAddress: Uint8Array;
  /** In the transaction's order. */
  validators: ConversionValidator[];
}

const CONVERSION_WHAT = 'ConversionData';
/** nodeID length prefix, BLS key, weight: the least a validator entry can take. */
const MIN_CONVERSION_VALIDATOR_BYTES = 4 + BLS_PUBLIC_KEY_LENGTH + 8;

/**
 * `0000 | subnetID | managerChainID | u32 len + managerAddress | u32 count + {u32 len + nodeID,
 * blsPublicKey[48], weight u64}*` — no extra length prefix (avalanchejs adds one and is wrong).
 */
export function encodeConversionData(data: ConversionData): Uint8Array {
  const w = new ByteWriter(CONVERSION_WHAT, 128 + data.validators.length * 96)
    .codecVersion()
    .fixed('subnetID', data.subnetId, ID_LENGTH)
    .fixed('managerChainID', data.managerChainId, ID_LENGTH)
    .varBytes('managerAddress', data.managerAddress, 0xffff_ffff)
    .u32('validators.count', data.validators.length);
  data.validators.forEach((v, i) => {
    w.varBytes(`validators[${i}].nodeID`, v.nodeId, 0xffff_ffff)
      .fixed(`validators[${i}].blsPublicKey`, v.blsPublicKey, BLS_PUBLIC_KEY_LENGTH)
      .u64(`validators[${i}].weight`, v.weight);
  });
  return w.bytes();
}

export function parseConversionData(bytes: Uint8Array): ConversionData {
  const r = new ByteReader(bytes, CONVERSION_WHAT);
  r.expectCodecVersion();
  const subnetId = r.fixed('subnetID', ID_LENGTH);
  const managerChainId = r.fixed('managerChainID', ID_LENGTH);
  const managerAddress = r.varBytes('managerAddress', r.remaining);
  const n = r.count('validators', MIN_CONVERSION_VALIDATOR_BYTES);
  const validators: ConversionValidator[] = [];
  for (let i = 0; i < n; i++) {
    validators.push({
      nodeId: r.varBytes(`validators[${i}].nodeID`, r.remaining),
      blsPublicKey: r.fixed(`validators[${i}].blsPublicKey`, BLS_PUBLIC_KEY_LENGTH),
      weight: r.u64(`validators[${i}].weight`),
    });
  }
  r.end();
  return { subnetId, managerChainId, managerAddress, validators };
}

/** conversionID = sha256 of the encoded conversion data. */
export function conversionId(data: ConversionData): Uint8Array {
  return sha256(encodeConversionData(data));
}

/** validationID of the `index`-th initial validator of a ConvertSubnetToL1Tx: sha256(subnetID ‖ u32(index)). */
export function validationIdFromIndex(subnetId: Uint8Array, index: number): Uint8Array {
  const w = new ByteWriter('validationID', ID_LENGTH + 4).fixed('subnetID', subnetId, ID_LENGTH).u32('index', index);
  return sha256(w.bytes());
}

/**
 * validationID of a RegisterL1ValidatorTx: sha256 of its RegisterL1Validator payload bytes, from
 * the codec version on. The bytes are parsed first so that hashing something else is an error.
 */
export function validationIdOfRegistration(registerPayloadBytes: Uint8Array): Uint8Array {
  const msg = parseL1Message(registerPayloadBytes);
  if (msg.type !== 'RegisterL1Validator') {
    throw new WarpFormatError(`${WHAT}.typeID`, `is ${msg.type}, expected RegisterL1Validator`, 2);
  }
  return sha256(registerPayloadBytes);
}

// --- P-Chain wrapping ---------------------------------------------------------------------------

/**
 * The unsigned Warp message the P-Chain's validators sign for an L1 message: source chain = the
 * P-Chain (32 zero bytes), payload = AddressedCall with an empty source address.
 */
export function newPChainMessage(networkId: number, msg: L1Message): UnsignedMessage {
  return newUnsignedMessage(networkId, P_CHAIN_ID, encodeAddressedCall(new Uint8Array(0), encodeL1Message(msg)));
}

/** The inverse of newPChainMessage: refuses anything not shaped as a P-Chain L1 message. */
export function parsePChainMessage(unsigned: UnsignedMessage): L1Message {
  if (!bytesEqual(unsigned.sourceChainId, P_CHAIN_ID)) {
    throw new WarpFormatError('UnsignedMessage.sourceChainID', 'is not the P-Chain (32 zero bytes)');
  }
  const payload = parsePayload(unsigned.payload);
  if (payload.type !== 'AddressedCall') {
    throw new WarpFormatError('UnsignedMessage.payload', `is a ${payload.type} payload, expected an AddressedCall`);
  }
  if (payload.sourceAddress.length !== 0) {
    throw new WarpFormatError('AddressedCall.sourceAddress', `must be empty for a P-Chain message, got ${payload.sourceAddress.length} bytes`);
  }
  return parseL1Message(payload.payload);
}
