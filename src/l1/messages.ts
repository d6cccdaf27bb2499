// Builds the P-Chain's own Warp messages (ACP-77, protocol.md section 6) that L1 operators need
// signed, from a P-Chain transaction or from a justification alone:
//
//   ConvertSubnetToL1Tx     → SubnetToL1Conversion(conversionID of the tx), justification = subnetID
//   RegisterL1ValidatorTx   → L1ValidatorRegistration(sha256(RegisterL1Validator payload), true)
//   SetL1ValidatorWeightTx  → L1ValidatorWeight(validationID, nonce, weight) of its message
//   justification = a 32-byte subnet ID → SubnetToL1Conversion(the subnet's conversionID)
//   justification = L1ValidatorRegistrationJustification → L1ValidatorRegistration(validationID, false)
//
// These messages are verified against the L1's own validator set, so the L1 the transaction
// concerns is the default signing subnet. Whether the validators will sign is theirs to decide
// (signer/pchain-policy.ts applies the P-Chain's rules); this module only builds the message.
//
// The transaction is read twice: as JSON for its fields and as hex for what the JSON lacks: the
// type ID that says which transaction it is, and bytes whose sha256 must be the requested txID,
// so a confused or hostile node cannot pass off another transaction.
import { sha256 } from '@noble/hashes/sha2.js';
import { NodeError, UnknownL1ValidatorError } from '../node/errors.js';
import type { PChainClient } from '../node/pchain.js';
import type { CallOptions } from '../node/transport.js';
import { ID_LENGTH, idToString } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { bytesEqual } from '../warp/hex.js';
import { conversionId, type L1Message } from '../warp/l1-messages.js';
import { L1RequestError } from './errors.js';
import { conversionIdOfSubnet, readRegistrationJustification } from './justification.js';
import { conversionDataFromTxJson, TxJsonReader, txTypeId } from './tx-json.js';

/** What a transaction or justification determines: the message and the L1 it concerns. */
export interface PChainL1Message {
  l1: L1Message;
  /** The default signing subnet. */
  subnetId: Uint8Array;
  justification: Uint8Array;
  /** The transaction's network, when it names one. */
  networkId?: number;
}

type PChainReads = Pick<PChainClient, 'getTx' | 'getTxStatus' | 'getL1Validator' | 'getSubnet'>;

/** P-Chain transaction type IDs (avalanchego vms/platformvm/txs/codec.go, skipped slots included). */
const PCHAIN_TX_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
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

/** The subnet an L1 validator belongs to (platform.getL1Validator). */
async function subnetOfValidator(pchain: PChainReads, validationId: Uint8Array, opts: CallOptions): Promise<Uint8Array> {
  try {
    return (await pchain.getL1Validator(validationId, opts)).subnetId;
  } catch (err) {
    const answer = err instanceof UnknownL1ValidatorError ? err.answer : err instanceof NodeError && err.kind === 'rpc' ? err : undefined;
    if (!answer) throw err;
    const id = idToString(validationId);
    throw new L1RequestError('not-found', `L1 validator ${id} is not on the P-Chain, so its L1 is unknown and its weight message will not be signed (${answer.message})`);
  }
}

/**
 * The message a committed transaction determines. `signingSubnetId`, when the caller names one,
 * spares the lookup of a weight change's L1. Throws L1RequestError for a transaction that is
 * unknown, not committed or of another kind; NodeError when the node fails or misleads.
 */
export async function messageOfTransaction(pchain: PChainReads, txId: Uint8Array, opts: CallOptions & { signingSubnetId?: Uint8Array } = {}): Promise<PChainL1Message> {
  const txHash = idToString(txId);
  const { status, reason } = await pchain.getTxStatus(txId, opts);
  if (status === 'Unknown') throw new L1RequestError('not-found', `transaction ${txHash} is not known to the P-Chain`);
  if (status === 'Processing') {
    throw new L1RequestError('uncommitted', `transaction ${txHash} is not committed yet (status Processing); its message can be signed once it is accepted`);
  }
  if (status !== 'Committed') {
    throw new L1RequestError('uncommitted', `transaction ${txHash} was ${status.toLowerCase()}${reason ? ` (${reason})` : ''} and will never be committed`);
  }

  const [json, bytes] = await Promise.all([pchain.getTx(txId, 'json', opts), pchain.getTx(txId, 'hex', opts)]);
  if (!bytesEqual(sha256(bytes), txId)) {
    throw new NodeError('platform.getTx', 'bad-response', `the node's bytes for transaction ${txHash} do not hash to its ID`);
  }
  const typeId = txTypeId(bytes, txHash);
  const r = new TxJsonReader(txHash);
  const unsignedTx = r.record(json.unsignedTx, 'unsignedTx');
  const networkId = r.networkId(unsignedTx);
  const none = new Uint8Array(0);
  switch (typeId) {
    case CONVERT_SUBNET_TO_L1_TX: {
      const data = conversionDataFromTxJson(unsignedTx, txHash);
      return { l1: { type: 'SubnetToL1Conversion', conversionId: conversionId(data) }, subnetId: data.subnetId, justification: data.subnetId, networkId };
    }
    case REGISTER_L1_VALIDATOR_TX: {
      const { bytes: payload, message } = r.embeddedL1Message(unsignedTx);
      if (message.type !== 'RegisterL1Validator') throw r.fail('unsignedTx.message', `carries a ${message.type}, expected a RegisterL1Validator`);
      const l1: L1Message = { type: 'L1ValidatorRegistration', validationId: sha256(payload), registered: true };
      return { l1, subnetId: message.subnetId, justification: none, networkId };
    }
    case SET_L1_VALIDATOR_WEIGHT_TX: {
      const { message } = r.embeddedL1Message(unsignedTx);
      if (message.type !== 'L1ValidatorWeight') throw r.fail('unsignedTx.message', `carries a ${message.type}, expected an L1ValidatorWeight`);
      const { validationId, nonce, weight } = message;
      const subnetId = opts.signingSubnetId ?? (await subnetOfValidator(pchain, validationId, opts));
      return { l1: { type: 'L1ValidatorWeight', validationId, nonce, weight }, subnetId, justification: none, networkId };
    }
    default: {
      const kind = PCHAIN_TX_TYPE_NAMES.get(typeId) ?? `transaction of unknown type ID ${typeId}`;
      throw new L1RequestError(
        'wrong-tx-type',
        `${txHash} is a ${kind}; only ConvertSubnetToL1Tx, RegisterL1ValidatorTx and SetL1ValidatorWeightTx produce L1 messages`,
        'txHash',
      );
    }
  }
}

/** SubnetToL1Conversion for a subnet named by a 32-byte justification. */
async function conversionOfSubnet(pchain: PChainReads, subnetId: Uint8Array, opts: CallOptions): Promise<PChainL1Message> {
  try {
    const id = await conversionIdOfSubnet(pchain, subnetId, opts);
    return { l1: { type: 'SubnetToL1Conversion', conversionId: id }, subnetId, justification: subnetId };
  } catch (err) {
    if (err instanceof L1RequestError) {
      const more = err.kind === 'not-converted' ? ', so there is no SubnetToL1Conversion to sign' : '';
      throw new L1RequestError(err.kind, `${err.reason}${more}`, 'justification');
    }
    if (err instanceof NodeError && err.kind === 'rpc') {
      throw new L1RequestError('not-found', `subnet ${idToString(subnetId)} is not known to the P-Chain (${err.message})`, 'justification');
    }
    throw err;
  }
}

/**
 * The message a justification alone determines, or null when it determines none (it is neither a
 * subnet ID nor an L1ValidatorRegistrationJustification).
 */
export async function messageOfJustification(pchain: PChainReads, justification: Uint8Array, opts: CallOptions = {}): Promise<PChainL1Message | null> {
  if (justification.length === 0) return null;
  // No justification protobuf is 32 bytes long (a SubnetIDIndex alone takes 36), so a 32-byte
  // justification can only be a subnet ID.
  if (justification.length === ID_LENGTH) return conversionOfSubnet(pchain, justification, opts);
  let registration;
  try {
    registration = readRegistrationJustification(justification);
  } catch (err) {
    if (err instanceof WarpFormatError) return null;
    throw err;
  }
  const { validationId, subnetId } = registration;
  return { l1: { type: 'L1ValidatorRegistration', validationId, registered: false }, subnetId, justification };
}
