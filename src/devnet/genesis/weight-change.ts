// The fifth stage of a genesis: one conversion validator's weight changes by a committed
// SetL1ValidatorWeightTx (nonce WEIGHT_CHANGE_NONCE), and a second change for it waits in a
// transaction the node reports as Processing, not yet in the state.
import { encodeL1Message } from '../../warp/l1-messages.js';
import { signPChainTx, type SignedPChainTx } from '../pchain/tx.js';
import type { Conversion } from './conversion.js';
import { HEIGHTS, WEIGHT_CHANGE_NONCE } from './history.js';
import { baseTx, type NetworkIdentities } from './identities.js';
import type { ValidatorKeys } from './validator-keys.js';
import type { ManagerSigner } from './warp.js';

interface WeightChangeTx {
  tx: SignedPChainTx;
  validationId: Uint8Array;
  nonce: bigint;
  weight: bigint;
  signedMessage: Uint8Array;
}

interface WeightChanges {
  /** The validator whose weight changed, by index, and its new (current) weight. */
  validatorIndex: number;
  committed: WeightChangeTx;
  pending: WeightChangeTx;
}

/**
 * Changes the weight of the last conversion validator that shares no key, in the state (its
 * record's weight, history and minNonce) as the committed transaction did.
 */
export function changeWeight(ids: NetworkIdentities, keys: ValidatorKeys, conversion: Conversion, sign: ManagerSigner): WeightChanges {
  const validatorIndex = [...Array(conversion.activeCount).keys()].filter((i) => !keys.sharedPair?.includes(i)).pop() ?? 0;
  const { state } = conversion;
  const record = state.records.find((r) => r.validationId === state.validationIds[validatorIndex])!;
  const { validationId } = record;
  const change = (label: string, nonce: bigint, weight: bigint, height: number): WeightChangeTx => {
    const payload = encodeL1Message({ type: 'L1ValidatorWeight', validationId, nonce, weight });
    const signedMessage = sign(payload, height);
    const tx = signPChainTx({ kind: 'SetL1ValidatorWeightTx', base: baseTx(ids, label, 1_000_000n), message: signedMessage }, ids.owner.secretKey);
    return { tx, validationId, nonce, weight, signedMessage };
  };

  const newWeight = record.weight + record.weight / 2n;
  const committed = change('weight', WEIGHT_CHANGE_NONCE, newWeight, HEIGHTS.weightChange - 1);
  record.weight = newWeight;
  record.weightHistory.push({ height: HEIGHTS.weightChange, weight: newWeight });
  record.minNonce = WEIGHT_CHANGE_NONCE + 1n;

  const pending = change('weight-pending', WEIGHT_CHANGE_NONCE + 1n, newWeight * 2n, HEIGHTS.current);
  return { validatorIndex, committed, pending };
}
