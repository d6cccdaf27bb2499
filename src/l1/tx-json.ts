// Reading a P-Chain transaction as the node serves it (platform.getTx): its type ID from the
// bytes, its fields from the JSON. uint64s above 2^53 arrive exact, as strings, through the node
// client's lossless parser. Every problem names the field and is the node's fault: a
// 'bad-response' NodeError of platform.getTx.
import { NodeError } from '../node/errors.js';
import { readUint64 } from '../node/json.js';
import { isRecord } from '../util/is-record.js';
import { parseCb58Id } from '../warp/cb58.js';
import { ByteReader } from '../warp/codec.js';
import { WarpFormatError } from '../warp/errors.js';
import { hexToBytes } from '../warp/hex.js';
import { BLS_PUBLIC_KEY_LENGTH, parseL1Message, type ConversionData, type L1Message } from '../warp/l1-messages.js';
import { parsePayload } from '../warp/payload.js';
import { parseWarpMessage } from '../warp/signed-message.js';

const GET_TX = 'platform.getTx';
const NODE_ID_LENGTH = 20;

/** Reads the fields of getTx's JSON; every problem names the field. */
export class TxJsonReader {
  constructor(readonly txHash: string) {}

  fail(path: string, reason: string, cause?: unknown): NodeError {
    return new NodeError(GET_TX, 'bad-response', `transaction ${this.txHash}: ${path} ${reason}`, { cause });
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
    if (n === undefined) throw this.fail(path, `is not a uint64: ${JSON.stringify(value)}`);
    return n;
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

/** The transaction's type ID: after the codec version, the first uint32 of its bytes. */
export function txTypeId(bytes: Uint8Array, txHash: string): number {
  try {
    const r = new ByteReader(bytes, 'Tx');
    r.expectCodecVersion();
    return r.u32('typeID');
  } catch (err) {
    if (err instanceof WarpFormatError) throw new NodeError(GET_TX, 'bad-response', `transaction ${txHash}: ${err.message}`, { cause: err });
    throw err;
  }
}
