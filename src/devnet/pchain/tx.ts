// The three P-Chain transactions an L1's Warp messages come from (ConvertSubnetToL1Tx,
// RegisterL1ValidatorTx, SetL1ValidatorWeightTx), encoded the way avalanchego does: the real
// codec bytes (vms/platformvm/txs, type IDs from txs/codec.go), secp256k1 credentials over
// sha256 of the unsigned bytes, txID = sha256 of the signed bytes, and the JSON that
// `platform.getTx` answers with `encoding: "json"` (plain uint64 fields as JSON numbers, which
// is why amounts and weights are kept as bigint and written with stringifyJson).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { cb58Encode, ID_LENGTH, NODE_ID_LENGTH } from '../../warp/cb58.js';
import { ByteWriter } from '../../warp/codec.js';
import { WarpFormatError } from '../../warp/errors.js';
import { bytesTo0xHex, concatBytes } from '../../warp/hex.js';
import type { PChainOwner } from '../../warp/l1-messages.js';
import { formatPChainAddress } from './address.js';

/** Type IDs of the P-Chain's linear codec (skips included, as registered in txs/codec.go). */
const PCHAIN_TYPE_IDS = {
  TransferInput: 5,
  TransferOutput: 7,
  Credential: 9,
  Input: 10,
  ConvertSubnetToL1Tx: 35,
  RegisterL1ValidatorTx: 36,
  SetL1ValidatorWeightTx: 37,
} as const;

const BLS_PUBLIC_KEY_LENGTH = 48;
const BLS_SIGNATURE_LENGTH = 96;
const SECP256K1_SIGNATURE_LENGTH = 65;
const SHORT_ID_LENGTH = 20;
const MAX_BYTES = 0xffff_ffff;

/** secp256k1fx.OutputOwners: who may spend an output. */
interface OutputOwners {
  locktime: bigint;
  threshold: number;
  /** 20-byte short IDs, sorted. */
  addresses: Uint8Array[];
}

interface TransferableOutput {
  assetId: Uint8Array;
  amount: bigint;
  owners: OutputOwners;
}

interface TransferableInput {
  /** The UTXO being spent. */
  txId: Uint8Array;
  outputIndex: number;
  assetId: Uint8Array;
  amount: bigint;
  signatureIndices: number[];
}

/** avax.BaseTx, the common head of every P-Chain transaction. */
export interface BaseTxFields {
  networkId: number;
  blockchainId: Uint8Array;
  outputs: TransferableOutput[];
  inputs: TransferableInput[];
  memo: Uint8Array;
}

/** One initial validator of a ConvertSubnetToL1Tx. */
export interface ConvertSubnetToL1Validator {
  nodeId: Uint8Array;
  weight: bigint;
  balance: bigint;
  publicKey: Uint8Array;
  proofOfPossession: Uint8Array;
  remainingBalanceOwner: PChainOwner;
  deactivationOwner: PChainOwner;
}

export interface ConvertSubnetToL1Tx {
  kind: 'ConvertSubnetToL1Tx';
  base: BaseTxFields;
  subnetId: Uint8Array;
  /** The manager's chain. */
  chainId: Uint8Array;
  /** The manager's address on that chain. */
  address: Uint8Array;
  /** Sorted by node ID bytes, as avalanchego requires; validationID i = sha256(subnetID ‖ u32 i). */
  validators: ConvertSubnetToL1Validator[];
  /** The subnet owner's signature indices (secp256k1fx.Input). */
  subnetAuthSignatureIndices: number[];
}

interface RegisterL1ValidatorTx {
  kind: 'RegisterL1ValidatorTx';
  base: BaseTxFields;
  balance: bigint;
  proofOfPossession: Uint8Array;
  /** Signed Warp message carrying the RegisterL1Validator payload. */
  message: Uint8Array;
}

interface SetL1ValidatorWeightTx {
  kind: 'SetL1ValidatorWeightTx';
  base: BaseTxFields;
  /** Signed Warp message carrying the L1ValidatorWeight payload. */
  message: Uint8Array;
}

type PChainUnsignedTx = ConvertSubnetToL1Tx | RegisterL1ValidatorTx | SetL1ValidatorWeightTx;

/** A transaction with its credentials, bytes and ID, ready to be served. */
export interface SignedPChainTx {
  unsigned: PChainUnsignedTx;
  /** `0000 | typeID | fields`: what the credentials sign (through sha256). */
  unsignedBytes: Uint8Array;
  /** One credential per input (and one for the subnet authorization), each a list of 65-byte signatures. */
  credentials: Uint8Array[][];
  /** The signed transaction: unsigned bytes followed by the credentials. */
  bytes: Uint8Array;
  /** sha256(bytes). */
  id: Uint8Array;
}

// --- bytes ------------------------------------------------------------------------------------

function writeOwners(w: ByteWriter, field: string, owners: OutputOwners): void {
  w.u64(`${field}.locktime`, owners.locktime).u32(`${field}.threshold`, owners.threshold);
  w.u32(`${field}.addresses.count`, owners.addresses.length);
  owners.addresses.forEach((a, i) => w.fixed(`${field}.addresses[${i}]`, a, SHORT_ID_LENGTH));
}

function writePChainOwner(w: ByteWriter, field: string, owner: PChainOwner): void {
  w.u32(`${field}.threshold`, owner.threshold).u32(`${field}.addresses.count`, owner.addresses.length);
  owner.addresses.forEach((a, i) => w.fixed(`${field}.addresses[${i}]`, a, SHORT_ID_LENGTH));
}

function writeBase(w: ByteWriter, base: BaseTxFields): void {
  w.u32('networkID', base.networkId).fixed('blockchainID', base.blockchainId, ID_LENGTH);
  w.u32('outputs.count', base.outputs.length);
  base.outputs.forEach((out, i) => {
    const f = `outputs[${i}]`;
    w.fixed(`${f}.assetID`, out.assetId, ID_LENGTH).u32(`${f}.typeID`, PCHAIN_TYPE_IDS.TransferOutput).u64(`${f}.amount`, out.amount);
    writeOwners(w, f, out.owners);
  });
  w.u32('inputs.count', base.inputs.length);
  base.inputs.forEach((input, i) => {
    const f = `inputs[${i}]`;
    w.fixed(`${f}.txID`, input.txId, ID_LENGTH)
      .u32(`${f}.outputIndex`, input.outputIndex)
      .fixed(`${f}.assetID`, input.assetId, ID_LENGTH)
      .u32(`${f}.typeID`, PCHAIN_TYPE_IDS.TransferInput)
      .u64(`${f}.amount`, input.amount)
      .u32(`${f}.signatureIndices.count`, input.signatureIndices.length);
    input.signatureIndices.forEach((s, j) => w.u32(`${f}.signatureIndices[${j}]`, s));
  });
  w.varBytes('memo', base.memo, MAX_BYTES);
}

/** `0000 | typeID | fields` of the unsigned transaction. */
export function encodeUnsignedTx(tx: PChainUnsignedTx): Uint8Array {
  const w = new ByteWriter(tx.kind, 512).codecVersion().u32('typeID', PCHAIN_TYPE_IDS[tx.kind]);
  writeBase(w, tx.base);
  switch (tx.kind) {
    case 'ConvertSubnetToL1Tx':
      checkConversionValidators(tx.validators);
      w.fixed('subnetID', tx.subnetId, ID_LENGTH).fixed('chainID', tx.chainId, ID_LENGTH).varBytes('address', tx.address, MAX_BYTES);
      w.u32('validators.count', tx.validators.length);
      tx.validators.forEach((v, i) => {
        const f = `validators[${i}]`;
        w.varBytes(`${f}.nodeID`, v.nodeId, MAX_BYTES)
          .u64(`${f}.weight`, v.weight)
          .u64(`${f}.balance`, v.balance)
          .fixed(`${f}.signer.publicKey`, v.publicKey, BLS_PUBLIC_KEY_LENGTH)
          .fixed(`${f}.signer.proofOfPossession`, v.proofOfPossession, BLS_SIGNATURE_LENGTH);
        writePChainOwner(w, `${f}.remainingBalanceOwner`, v.remainingBalanceOwner);
        writePChainOwner(w, `${f}.deactivationOwner`, v.deactivationOwner);
      });
      w.u32('subnetAuthorization.typeID', PCHAIN_TYPE_IDS.Input).u32('subnetAuthorization.count', tx.subnetAuthSignatureIndices.length);
      tx.subnetAuthSignatureIndices.forEach((s, j) => w.u32(`subnetAuthorization[${j}]`, s));
      break;
    case 'RegisterL1ValidatorTx':
      w.u64('balance', tx.balance).fixed('proofOfPossession', tx.proofOfPossession, BLS_SIGNATURE_LENGTH).varBytes('message', tx.message, MAX_BYTES);
      break;
    case 'SetL1ValidatorWeightTx':
      w.varBytes('message', tx.message, MAX_BYTES);
      break;
  }
  return w.bytes();
}

/** How many credentials the transaction needs: one per input, plus the subnet authorization. */
function credentialSignatureCounts(tx: PChainUnsignedTx): number[] {
  const counts = tx.base.inputs.map((i) => i.signatureIndices.length);
  if (tx.kind === 'ConvertSubnetToL1Tx') counts.push(tx.subnetAuthSignatureIndices.length);
  return counts;
}

/**
 * avalanchego's secp256k1 signature over sha256(message): r ‖ s ‖ recovery id (65 bytes),
 * low-s, deterministic (RFC 6979), so the same inputs always give the same transaction ID.
 */
function secp256k1Sign(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  const recovered = secp256k1.sign(message, secretKey, { prehash: true, format: 'recovered', lowS: true });
  // noble puts the recovery byte first; avalanchego puts it last.
  return concatBytes(recovered.subarray(1), recovered.subarray(0, 1));
}

/**
 * Signs every credential slot with `secretKey` (the devnet has one owner key for all its UTXOs
 * and its subnet) and assembles the signed transaction.
 */
export function signPChainTx(tx: PChainUnsignedTx, secretKey: Uint8Array): SignedPChainTx {
  const unsignedBytes = encodeUnsignedTx(tx);
  const signature = secp256k1Sign(secretKey, unsignedBytes);
  const credentials = credentialSignatureCounts(tx).map((n) => Array.from({ length: n }, () => signature));
  const w = new ByteWriter(`${tx.kind}.credentials`, unsignedBytes.length + 8 + credentials.length * 80).raw(unsignedBytes);
  w.u32('credentials.count', credentials.length);
  credentials.forEach((sigs, i) => {
    w.u32(`credentials[${i}].typeID`, PCHAIN_TYPE_IDS.Credential).u32(`credentials[${i}].count`, sigs.length);
    sigs.forEach((s, j) => w.fixed(`credentials[${i}][${j}]`, s, SECP256K1_SIGNATURE_LENGTH));
  });
  const bytes = w.bytes();
  return { unsigned: tx, unsignedBytes, credentials, bytes, id: sha256(bytes) };
}

/** formatting.Hex (and HexC): `0x` + hex of the bytes followed by the last 4 bytes of their sha256. */
export function hexWithChecksum(bytes: Uint8Array): string {
  return bytesTo0xHex(concatBytes(bytes, sha256(bytes).subarray(-4)));
}

// --- JSON -------------------------------------------------------------------------------------

/** The well-known ID of secp256k1fx, shown as every input's and output's `fxID`. */
const SECP256K1FX_ID_CB58 = 'spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ';

/** A TransferOutput: Go marshals it as a map, so its keys come out sorted. */
function transferOutputJson(out: TransferableOutput, networkId: number): Record<string, unknown> {
  return {
    addresses: out.owners.addresses.map((a) => formatPChainAddress(a, networkId)),
    amount: out.amount,
    locktime: out.owners.locktime,
    threshold: out.owners.threshold,
  };
}

function pchainOwnerJson(owner: PChainOwner): Record<string, unknown> {
  // message.PChainOwner is a plain struct of ids.ShortID: addresses print as bare cb58.
  return { threshold: owner.threshold, addresses: owner.addresses.map((a) => cb58Encode(a)) };
}

function baseJson(base: BaseTxFields): Record<string, unknown> {
  return {
    networkID: base.networkId,
    blockchainID: cb58Encode(base.blockchainId),
    outputs: base.outputs.map((out) => ({
      assetID: cb58Encode(out.assetId),
      fxID: SECP256K1FX_ID_CB58,
      output: transferOutputJson(out, base.networkId),
    })),
    inputs: base.inputs.map((input) => ({
      txID: cb58Encode(input.txId),
      outputIndex: input.outputIndex,
      assetID: cb58Encode(input.assetId),
      fxID: SECP256K1FX_ID_CB58,
      input: { amount: input.amount, signatureIndices: input.signatureIndices },
    })),
    memo: bytesTo0xHex(base.memo),
  };
}

/** The `unsignedTx` object of getTx's JSON encoding. */
export function unsignedTxJson(tx: PChainUnsignedTx): Record<string, unknown> {
  const base = baseJson(tx.base);
  switch (tx.kind) {
    case 'ConvertSubnetToL1Tx':
      return {
        ...base,
        subnetID: cb58Encode(tx.subnetId),
        chainID: cb58Encode(tx.chainId),
        address: bytesTo0xHex(tx.address),
        validators: tx.validators.map((v) => ({
          nodeID: bytesTo0xHex(v.nodeId),
          weight: v.weight,
          balance: v.balance,
          signer: { publicKey: bytesTo0xHex(v.publicKey), proofOfPossession: bytesTo0xHex(v.proofOfPossession) },
          remainingBalanceOwner: pchainOwnerJson(v.remainingBalanceOwner),
          deactivationOwner: pchainOwnerJson(v.deactivationOwner),
        })),
        subnetAuthorization: { signatureIndices: tx.subnetAuthSignatureIndices },
      };
    case 'RegisterL1ValidatorTx':
      // A Go [96]byte marshals as an array of numbers, unlike the []byte message.
      return { ...base, balance: tx.balance, proofOfPossession: Array.from(tx.proofOfPossession), message: bytesTo0xHex(tx.message) };
    case 'SetL1ValidatorWeightTx':
      return { ...base, message: bytesTo0xHex(tx.message) };
  }
}

/** getTx's `tx` for `encoding: "json"`: `{unsignedTx, credentials, id}`. */
export function signedTxJson(tx: SignedPChainTx): Record<string, unknown> {
  return {
    unsignedTx: unsignedTxJson(tx.unsigned),
    credentials: tx.credentials.map((sigs) => ({ signatures: sigs.map((s) => bytesTo0xHex(s)) })),
    id: cb58Encode(tx.id),
  };
}

/**
 * What the codec alone would not catch but avalanchego refuses: node IDs that are not 20 bytes,
 * and validators not sorted by node ID (or repeated), which would also shift validation IDs.
 */
function checkConversionValidators(validators: readonly ConvertSubnetToL1Validator[]): void {
  validators.forEach((v, i) => {
    if (v.nodeId.length !== NODE_ID_LENGTH) {
      throw new WarpFormatError(`ConvertSubnetToL1Tx.validators[${i}].nodeID`, `must be ${NODE_ID_LENGTH} bytes, got ${v.nodeId.length}`);
    }
    const prev = validators[i - 1];
    if (prev && Buffer.compare(prev.nodeId, v.nodeId) >= 0) {
      throw new WarpFormatError(`ConvertSubnetToL1Tx.validators[${i}]`, 'must be sorted by node ID with no duplicates');
    }
  });
}
