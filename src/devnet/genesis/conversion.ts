// The third stage of a genesis: the ConvertSubnetToL1Tx that makes the subnet an L1, with at most
// MAX_CONVERSION_VALIDATORS of the active validators and every inactive one (balance 0), sorted by
// node ID as avalanchego requires. Its validators become the first records of the L1's state.
import { validationIdFromIndex, type ConversionData } from '../../warp/l1-messages.js';
import { signPChainTx, type ConvertSubnetToL1Validator, type SignedPChainTx } from '../pchain/tx.js';
import { HEIGHTS, timeAtHeight } from './history.js';
import { baseTx, NANO_AVAX, type NetworkIdentities } from './identities.js';
import { proofOfPossession } from './pop.js';
import type { L1ValidatorRecord } from './types.js';
import type { KeyedNode, ValidatorKeys } from './validator-keys.js';

/** Active validators created by the ConvertSubnetToL1Tx; the rest join by registration. */
const MAX_CONVERSION_VALIDATORS = 10;

const CONVERSION_BALANCE = 10n * NANO_AVAX;

/** The L1's validators as the P-Chain's state holds them, built up by the history's transactions. */
export interface L1ValidatorState {
  records: L1ValidatorRecord[];
  /** The validation ID of active validator i, once it has joined. */
  validationIds: Uint8Array[];
}

export interface Conversion {
  tx: SignedPChainTx;
  data: ConversionData;
  /** Active validators the conversion made (indices 0 … activeCount-1). */
  activeCount: number;
  state: L1ValidatorState;
}

type Member = { node: KeyedNode; weight: bigint; balance: bigint; active: boolean; validatorIndex?: number };

export function convertSubnetToL1(ids: NetworkIdentities, keys: ValidatorKeys): Conversion {
  const { subnetId, blockchainId, managerAddress } = ids;
  const owner = ids.owner.pchainOwner;
  const n = keys.nodes.length;
  const activeCount = Math.min(n - 1, MAX_CONVERSION_VALIDATORS);
  const members: Member[] = [
    ...keys.nodes
      .slice(0, activeCount)
      .map((node, i) => ({ node, weight: keys.initialWeights[i]!, balance: CONVERSION_BALANCE, active: true, validatorIndex: i })),
    ...keys.inactive.map(({ node, weight }) => ({ node, weight, balance: 0n, active: false })),
  ].sort((a, b) => Buffer.compare(a.node.nodeIdBytes, b.node.nodeIdBytes));
  const validators: ConvertSubnetToL1Validator[] = members.map((m) => ({
    nodeId: m.node.nodeIdBytes,
    weight: m.weight,
    balance: m.balance,
    publicKey: m.node.publicKey,
    proofOfPossession: proofOfPossession(m.node.secretKey),
    remainingBalanceOwner: owner,
    deactivationOwner: owner,
  }));
  const data: ConversionData = {
    subnetId,
    managerChainId: blockchainId,
    managerAddress,
    validators: members.map((m) => ({ nodeId: m.node.nodeIdBytes, blsPublicKey: m.node.publicKey, weight: m.weight })),
  };
  const tx = signPChainTx(
    {
      kind: 'ConvertSubnetToL1Tx',
      base: baseTx(ids, 'convert', 1_000_000n + CONVERSION_BALANCE * BigInt(activeCount)),
      subnetId,
      chainId: blockchainId,
      address: managerAddress,
      validators,
      subnetAuthSignatureIndices: [0],
    },
    ids.owner.secretKey,
  );

  const state: L1ValidatorState = { records: [], validationIds: new Array<Uint8Array>(n) };
  members.forEach((m, position) => {
    const validationId = validationIdFromIndex(subnetId, position);
    if (m.validatorIndex !== undefined) state.validationIds[m.validatorIndex] = validationId;
    state.records.push({
      validationId,
      nodeId: m.node.nodeId,
      nodeIdBytes: m.node.nodeIdBytes,
      publicKey: m.node.publicKey,
      weight: m.weight,
      weightHistory: [{ height: HEIGHTS.conversion, weight: m.weight }],
      minNonce: 0n,
      balance: m.active ? CONVERSION_BALANCE - 123_456_789n : 0n,
      startTime: timeAtHeight(HEIGHTS.conversion),
      remainingBalanceOwner: owner,
      deactivationOwner: owner,
      joinedBy: 'conversion',
    });
  });
  return { tx, data, activeCount, state };
}
