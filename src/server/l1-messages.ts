// Builds the P-Chain's own Warp messages (ACP-77, protocol.md section 6) that L1 operators need
// signed, from a P-Chain transaction (GET …/aggregateSignatures/{txHash}) or from a justification
// alone (POST …/aggregateSignatures with no message):
//
//   ConvertSubnetToL1Tx     → SubnetToL1Conversion(conversionID of the tx), justification = subnetID
//   RegisterL1ValidatorTx   → L1ValidatorRegistration(sha256(RegisterL1Validator payload), true)
//   SetL1ValidatorWeightTx  → L1ValidatorWeight(validationID, nonce, weight) of its message
//   justification = a 32-byte subnet ID → SubnetToL1Conversion(the subnet's conversionID)
//   justification = L1ValidatorRegistrationJustification → L1ValidatorRegistration(validationID, false)
//
// These messages are verified against the L1's own validator set, so the L1 the transaction
// concerns is the default signing subnet. Whether the validators will sign is theirs to decide
// (src/signer/pchain-policy.ts applies the P-Chain's rules); this module only builds the bytes.
//
// The transaction is read twice: as JSON for its fields (uint64s above 2^53 arrive exact, as
// strings, through PChainClient's lossless parser) and as hex for what the JSON lacks: the type
// ID that says which transaction it is, and bytes whose sha256 must be the requested txID, so a
// confused or hostile node cannot pass off another transaction.
import { sha256 } from '@noble/hashes/sha2.js';
import type { AggregationRequest } from '../aggregator/aggregator.js';
import { ID_LENGTH, idToString, parseCb58Id, parseId } from '../warp/cb58.js';
import { ByteReader } from '../warp/codec.js';
import { WarpFormatError } from '../warp/errors.js';
import { bytesEqual, hexToBytes } from '../warp/hex.js';
import { decodeL1ValidatorRegistrationJustification } from '../warp/justification.js';
import {
  BLS_PUBLIC_KEY_LENGTH,
  conversionId,
  newPChainMessage,
  parseL1Message,
  validationIdFromIndex,
  type ConversionData,
  type L1Message,
} from '../warp/l1-messages.js';
import { parsePayload } from '../warp/payload.js';
import { parseWarpMessage } from '../warp/signed-message.js';
import type { PChainClient } from '../node/pchain.js';
import { NodeError, UnknownL1ValidatorError, UnknownSubnetError } from '../node/errors.js';
import { readUint64 } from '../node/json.js';
import { isRecord } from '../util/is-record.js';
import type { L1MessageBuilder } from './app.js';
import { networkIdOf, type ParsedBody } from './aggregation-request.js';
import { BadRequestError, HttpError } from './http-errors.js';
import { untilAborted } from '../util/abortable.js';

/** The request's deadline: every P-Chain read stops waiting when it aborts. */
interface ReadOptions {
  signal?: AbortSignal;
}

/** P-Chain transaction type IDs (avalanchego vms/platformvm/txs/codec.go, skipped slots included). */
export const PCHAIN_TX_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [12, 'AddValidatorTx'],
  [13, 'AddSubnetValidatorTx'],
  [14, 'AddDelegatorTx'],
  [15, 'CreateChainTx'],
  [16, 'CreateSubnetTx'],
  [17, 'ImportTx'],
  [18, 'ExportTx'],
  [19, 'AdvanceTimeTx'],
  [20, 'RewardValidatorTx'],
  [23, 'RemoveSubnetValidatorTx'],
  [24, 'TransformSubnetTx'],
  [25, 'AddPermissionlessValidatorTx'],
  [26, 'AddPermissionlessDelegatorTx'],
  [33, 'TransferSubnetOwnershipTx'],
  [34, 'BaseTx'],
  [35, 'ConvertSubnetToL1Tx'],
  [36, 'RegisterL1ValidatorTx'],
  [37, 'SetL1ValidatorWeightTx'],
  [38, 'IncreaseL1ValidatorBalanceTx'],
  [39, 'DisableL1ValidatorTx'],
]);

const CONVERT_SUBNET_TO_L1_TX = 35;
const REGISTER_L1_VALIDATOR_TX = 36;
const SET_L1_VALIDATOR_WEIGHT_TX = 37;
const NODE_ID_LENGTH = 20;

/** What a transaction or justification determines: the message and the L1 it concerns. */
interface BuiltMessage {
  l1: L1Message;
  /** The default signing subnet. */
  subnetId: Uint8Array;
  justification: Uint8Array;
  networkId?: number;
}

/** The options of GET …/aggregateSignatures/{txHash}, validated as the POST body's fields are. */
interface TxQuery {
  signingSubnetId?: Uint8Array;
  quorumPercentage: number;
  quorumPercentageBuffer: number;
  pChainHeight: number;
}

// --- query ---------------------------------------------------------------------------------------

function singleQueryValue(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new BadRequestError(name, 'must be given once, as a single value');
  return v;
}

function queryInteger(query: Record<string, unknown>, name: string, min: number, max: number, fallback: number): number {
  const text = singleQueryValue(query, name);
  if (text === undefined) return fallback;
  if (!/^-?\d+$/.test(text)) throw new BadRequestError(name, `must be an integer, got '${text}'`);
  const v = Number(text);
  if (v < min || v > max) throw new BadRequestError(name, `must be from ${min} to ${max}, got ${text}`);
  return v;
}

export function parseTxQuery(query: Record<string, unknown>): TxQuery {
  const subnet = singleQueryValue(query, 'signingSubnetId');
  let signingSubnetId: Uint8Array | undefined;
  if (subnet !== undefined) {
    try {
      signingSubnetId = parseId(subnet, 'signingSubnetId');
    } catch (err) {
      if (err instanceof WarpFormatError) throw new BadRequestError('signingSubnetId', `must be a 32-byte ID in hex or cb58: ${err.reason}`);
      throw err;
    }
  }
  const quorumPercentage = queryInteger(query, 'quorumPercentage', 0, 100, 67);
  const quorumPercentageBuffer = queryInteger(query, 'quorumPercentageBuffer', 0, 100, 0);
  if (quorumPercentage + quorumPercentageBuffer > 100) {
    throw new BadRequestError('quorumPercentageBuffer', `quorumPercentage + quorumPercentageBuffer must be at most 100, got ${quorumPercentage + quorumPercentageBuffer}`);
  }
  const pChainHeight = queryInteger(query, 'pChainHeight', 0, Number.MAX_SAFE_INTEGER, 0);
  return { signingSubnetId, quorumPercentage, quorumPercentageBuffer, pChainHeight };
}

// --- the transaction's JSON ------------------------------------------------------------------------

/** Reads the fields of getTx's JSON; every problem names the field and is the node's fault (502). */
class TxJsonReader {
  constructor(readonly txHash: string) {}

  fail(path: string, reason: string, cause?: unknown): NodeError {
    return new NodeError('platform.getTx', 'bad-response', `transaction ${this.txHash}: ${path} ${reason}`, { cause });
  }

  record(value: unknown, path: string): Record<string, unknown> {
    if (!isRecord(value)) throw this.fail(path, 'is not an object');
    return value;
  }

  array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) throw this.fail(path, 'is not an array');
    return value;
  }

  id(value: unknown, path: string): Uint8Array {
    try {
      return parseCb58Id(value as string, path);
    } catch (err) {
      throw this.fail(path, `is not a cb58 ID (${(err as Error).message})`, err);
    }
  }

  hex(value: unknown, path: string, length?: number): Uint8Array {
    let bytes: Uint8Array;
    try {
      bytes = hexToBytes(value as string, path);
    } catch (err) {
      throw this.fail(path, `is not 0x hex (${(err as Error).message})`, err);
    }
    if (length !== undefined && bytes.length !== length) throw this.fail(path, `must be ${length} bytes, got ${bytes.length}`);
    return bytes;
  }

  /** A uint64: a JSON number when exact, a decimal string when the lossless parser kept it exact. */
  uint64(value: unknown, path: string): bigint {
    const n = readUint64(value);
    if (n !== undefined) return n;
    throw this.fail(path, `is not a uint64: ${JSON.stringify(value)}`);
  }

  networkId(unsignedTx: Record<string, unknown>): number | undefined {
    const v = unsignedTx.networkID;
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffff_ffff) throw this.fail('unsignedTx.networkID', `is not a uint32: ${JSON.stringify(v)}`);
    return v;
  }

  /** The L1 message inside the tx's `message`: a signed Warp message whose payload is an AddressedCall. */
  embeddedL1Message(unsignedTx: Record<string, unknown>): { bytes: Uint8Array; message: L1Message } {
    const path = 'unsignedTx.message';
    const raw = this.hex(unsignedTx.message, path);
    try {
      const warp = parseWarpMessage(raw);
      const unsigned = warp.kind === 'signed' ? warp.message.unsigned : warp.message;
      const payload = parsePayload(unsigned.payload);
      if (payload.type !== 'AddressedCall') throw new WarpFormatError(`${path}.payload`, `is a ${payload.type} payload, expected an AddressedCall`);
      return { bytes: payload.payload, message: parseL1Message(payload.payload) };
    } catch (err) {
      if (err instanceof WarpFormatError) throw this.fail(path, `is not a Warp message carrying an L1 message (${err.message})`, err);
      throw err;
    }
  }
}

/** SubnetToL1ConversionData of a ConvertSubnetToL1Tx's JSON, validators in the transaction's order. */
export function conversionDataFromTxJson(unsignedTx: Record<string, unknown>, txHash = 'tx'): ConversionData {
  const r = new TxJsonReader(txHash);
  const validators = r.array(unsignedTx.validators, 'unsignedTx.validators').map((entry, i) => {
    const path = `unsignedTx.validators[${i}]`;
    const v = r.record(entry, path);
    const signer = r.record(v.signer, `${path}.signer`);
    return {
      // avalanchego prints this nodeID as the raw bytes in hex (types.JSONByteSlice), not NodeID-….
      nodeId: r.hex(v.nodeID, `${path}.nodeID`, NODE_ID_LENGTH),
      blsPublicKey: r.hex(signer.publicKey, `${path}.signer.publicKey`, BLS_PUBLIC_KEY_LENGTH),
      weight: r.uint64(v.weight, `${path}.weight`),
    };
  });
  return {
    subnetId: r.id(unsignedTx.subnetID, 'unsignedTx.subnetID'),
    managerChainId: r.id(unsignedTx.chainID, 'unsignedTx.chainID'),
    managerAddress: r.hex(unsignedTx.address, 'unsignedTx.address'),
    validators,
  };
}

// --- the builder -----------------------------------------------------------------------------------

export function l1MessageBuilder(deps: { pchain: PChainClient; nodeNetworkId: () => Promise<number> }): L1MessageBuilder {
  const { pchain, nodeNetworkId: networkIdOfNode } = deps;

  const request = (built: BuiltMessage, networkId: number, opts: TxQuery): AggregationRequest => ({
    message: newPChainMessage(networkId, built.l1),
    justification: built.justification,
    signingSubnetId: opts.signingSubnetId ?? built.subnetId,
    quorumPercentage: opts.quorumPercentage,
    quorumPercentageBuffer: opts.quorumPercentageBuffer,
    pChainHeight: opts.pChainHeight,
  });

  /** The subnet an L1 validator belongs to (platform.getL1Validator). */
  const subnetOfValidator = async (validationId: Uint8Array, opts: ReadOptions): Promise<Uint8Array> => {
    const id = idToString(validationId);
    try {
      return (await pchain.getL1Validator(validationId, opts)).subnetId;
    } catch (err) {
      const answer = err instanceof UnknownL1ValidatorError ? err.answer : err instanceof NodeError && err.kind === 'rpc' ? err : undefined;
      if (answer) throw new HttpError(404, `L1 validator ${id} is not on the P-Chain, so its L1 is unknown and its weight message will not be signed (${answer.message})`);
      throw err;
    }
  };

  const fromCommittedTx = async (txId: Uint8Array, txHash: string, query: TxQuery, opts: ReadOptions): Promise<BuiltMessage> => {
    const [json, bytes] = await Promise.all([pchain.getTx(txId, 'json', opts), pchain.getTx(txId, 'hex', opts)]);
    if (!bytesEqual(sha256(bytes), txId)) {
      throw new NodeError('platform.getTx', 'bad-response', `the node's bytes for transaction ${txHash} do not hash to its ID`);
    }
    const typeId = txTypeId(bytes, txHash);
    const r = new TxJsonReader(txHash);
    const unsignedTx = r.record(json.unsignedTx, 'unsignedTx');
    const networkId = r.networkId(unsignedTx);
    switch (typeId) {
      case CONVERT_SUBNET_TO_L1_TX: {
        const data = conversionDataFromTxJson(unsignedTx, txHash);
        return { l1: { type: 'SubnetToL1Conversion', conversionId: conversionId(data) }, subnetId: data.subnetId, justification: data.subnetId, networkId };
      }
      case REGISTER_L1_VALIDATOR_TX: {
        const { bytes: payload, message } = r.embeddedL1Message(unsignedTx);
        if (message.type !== 'RegisterL1Validator') throw r.fail('unsignedTx.message', `carries a ${message.type}, expected a RegisterL1Validator`);
        const l1: L1Message = { type: 'L1ValidatorRegistration', validationId: sha256(payload), registered: true };
        return { l1, subnetId: message.subnetId, justification: new Uint8Array(0), networkId };
      }
      case SET_L1_VALIDATOR_WEIGHT_TX: {
        const { message } = r.embeddedL1Message(unsignedTx);
        if (message.type !== 'L1ValidatorWeight') throw r.fail('unsignedTx.message', `carries a ${message.type}, expected an L1ValidatorWeight`);
        const { validationId, nonce, weight } = message;
        const subnetId = query.signingSubnetId ?? (await subnetOfValidator(validationId, opts));
        return { l1: { type: 'L1ValidatorWeight', validationId, nonce, weight }, subnetId, justification: new Uint8Array(0), networkId };
      }
      default: {
        const kind = PCHAIN_TX_TYPE_NAMES.get(typeId) ?? `transaction of unknown type ID ${typeId}`;
        throw new BadRequestError(
          'txHash',
          `${txHash} is a ${kind}; only ConvertSubnetToL1Tx, RegisterL1ValidatorTx and SetL1ValidatorWeightTx produce L1 messages`,
        );
      }
    }
  };

  /** SubnetToL1Conversion for a subnet named by a 32-byte justification. */
  const conversionOfSubnet = async (subnetId: Uint8Array, opts: ReadOptions): Promise<BuiltMessage> => {
    const subnet = idToString(subnetId);
    let info;
    try {
      info = await pchain.getSubnet(subnetId, opts);
    } catch (err) {
      if (err instanceof UnknownSubnetError) throw new HttpError(404, `justification: ${err.message}`);
      if (err instanceof NodeError && err.kind === 'rpc') throw new HttpError(404, `justification: subnet ${subnet} is not known to the P-Chain (${err.message})`);
      throw err;
    }
    if (info.conversionId.every((b) => b === 0)) {
      throw new HttpError(404, `justification: subnet ${subnet} has not been converted to an L1, so there is no SubnetToL1Conversion to sign`);
    }
    return { l1: { type: 'SubnetToL1Conversion', conversionId: info.conversionId }, subnetId, justification: subnetId };
  };

  /** L1ValidatorRegistration(false) for an L1ValidatorRegistrationJustification; null for anything else. */
  const unregistration = (justification: Uint8Array): BuiltMessage | null => {
    let preimage;
    try {
      preimage = decodeL1ValidatorRegistrationJustification(justification);
    } catch (err) {
      if (err instanceof WarpFormatError) return null;
      throw err;
    }
    if (preimage.type === 'SubnetIdIndex') {
      const validationId = validationIdFromIndex(preimage.subnetId, preimage.index);
      return { l1: { type: 'L1ValidatorRegistration', validationId, registered: false }, subnetId: preimage.subnetId, justification };
    }
    let register: L1Message;
    try {
      register = parseL1Message(preimage.message);
    } catch (err) {
      if (err instanceof WarpFormatError) throw new BadRequestError('justification', `register_l1_validator_message is not an L1 message: ${err.message}`);
      throw err;
    }
    if (register.type !== 'RegisterL1Validator') {
      throw new BadRequestError('justification', `register_l1_validator_message is a ${register.type}, not a RegisterL1Validator`);
    }
    // validationID of a registration = sha256 of its RegisterL1Validator payload bytes.
    const validationId = sha256(preimage.message);
    return { l1: { type: 'L1ValidatorRegistration', validationId, registered: false }, subnetId: register.subnetId, justification };
  };

  return {
    async fromTransaction(network, txHash, rawQuery, opts = {}) {
      const pathNetworkId = networkIdOf(network);
      if (pathNetworkId === undefined) throw new BadRequestError('network', `must be mainnet, fuji or testnet, got '${network}'`);
      let txId: Uint8Array;
      try {
        txId = parseCb58Id(txHash, 'txHash');
      } catch (err) {
        if (err instanceof WarpFormatError) throw new BadRequestError('txHash', `must be a cb58 transaction ID: ${err.reason}`);
        throw err;
      }
      const query = parseTxQuery(rawQuery);

      const { status, reason } = await pchain.getTxStatus(txId, opts);
      if (status === 'Unknown') throw new HttpError(404, `transaction ${txHash} is not known to the P-Chain`);
      if (status === 'Processing') {
        throw new HttpError(404, `transaction ${txHash} is not committed yet (status Processing); its message can be signed once it is accepted`);
      }
      if (status !== 'Committed') {
        throw new HttpError(404, `transaction ${txHash} was ${status.toLowerCase()}${reason ? ` (${reason})` : ''} and will never be committed`);
      }
      const built = await fromCommittedTx(txId, txHash, query, opts);
      return request(built, built.networkId ?? pathNetworkId, query);
    },

    async fromJustification(parsed: ParsedBody, networkId, opts = {}) {
      const j = parsed.justification;
      if (j.length === 0) return null;
      // No justification protobuf is 32 bytes long (a SubnetIDIndex alone takes 36), so a
      // 32-byte justification can only be a subnet ID.
      const built = j.length === ID_LENGTH ? await conversionOfSubnet(j, opts) : unregistration(j);
      if (!built) return null;
      // The node's network ID is asked once and shared: this request only stops waiting for it.
      return request(built, networkId ?? (await untilAborted(networkIdOfNode(), opts.signal)), parsed);
    },
  };
}

/** The transaction's type ID: after the codec version, the first uint32 of its bytes. */
function txTypeId(bytes: Uint8Array, txHash: string): number {
  try {
    const r = new ByteReader(bytes, 'Tx');
    r.expectCodecVersion();
    return r.u32('typeID');
  } catch (err) {
    if (err instanceof WarpFormatError) throw new NodeError('platform.getTx', 'bad-response', `transaction ${txHash}: ${err.message}`, { cause: err });
    throw err;
  }
}
