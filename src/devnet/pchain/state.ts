// Questions about the devnet's P-Chain state, answered from its genesis: validator sets by
// subnet and height (what getValidatorsAt serves), L1 validators by validation ID, transactions
// by ID, and the view a signer policy needs to decide whether a P-Chain L1 message is true
// (protocol.md section 6, avalanchego vms/platformvm/network/warp.go).
import type { ValidatorEntry } from '../../validators/canonical-set.js';
import { bytesEqual, bytesToHex } from '../../warp/hex.js';
import { PRIMARY_NETWORK_ID } from '../../warp/cb58.js';
import { l1EntriesAt, validationKey } from '../genesis/history.js';
import type { DevnetGenesis, DevnetTransaction, L1ValidatorRecord } from '../genesis/types.js';

/** What a signer policy asks before signing a P-Chain L1 message. */
interface PChainStateView {
  /** True iff `subnetId` was converted to an L1 with exactly this conversionID. */
  conversionHappened(subnetId: Uint8Array, conversionId: Uint8Array): boolean;
  /** The conversionID of a converted subnet, else undefined (tells "not converted" from "wrong ID"). */
  conversionIdOf(subnetId: Uint8Array): Uint8Array | undefined;
  /** True iff the P-Chain currently has an L1 validator with this validation ID (active or not). */
  validatorExists(validationId: Uint8Array): boolean;
  /**
   * The validator's current weight and minNonce, or undefined when it does not exist. An
   * L1ValidatorWeight(validationID, nonce, weight) is true iff nonce + 1 === minNonce and
   * weight === this weight (avalanchego's verifyL1ValidatorWeight).
   */
  currentWeightAndNonce(validationId: Uint8Array): { weight: bigint; minNonce: bigint } | undefined;
}

/** Lookups over one genesis, built once (the indexes are plain maps). */
export class PChainState {
  private readonly byValidation = new Map<string, L1ValidatorRecord>();
  private readonly byTxId = new Map<string, DevnetTransaction>();

  constructor(readonly genesis: DevnetGenesis) {
    for (const record of genesis.l1Validators) this.byValidation.set(validationKey(record.validationId), record);
    for (const tx of genesis.transactions) this.byTxId.set(bytesToHex(tx.tx.id), tx);
  }

  isL1(subnetId: Uint8Array): boolean {
    return bytesEqual(subnetId, this.genesis.subnetId);
  }

  isPrimaryNetwork(subnetId: Uint8Array): boolean {
    return bytesEqual(subnetId, PRIMARY_NETWORK_ID);
  }

  /** Validator set of a subnet at a height ≤ the current one; unknown subnets have none. */
  validatorsAt(subnetId: Uint8Array, height: number): ValidatorEntry[] {
    if (this.isL1(subnetId)) return l1EntriesAt(this.genesis.l1Validators, height);
    if (this.isPrimaryNetwork(subnetId)) {
      return this.genesis.primaryValidators.map((v) => ({ nodeId: v.nodeId, weight: v.weight, publicKey: v.publicKey }));
    }
    return [];
  }

  l1Validator(validationId: Uint8Array): L1ValidatorRecord | undefined {
    return this.byValidation.get(validationKey(validationId));
  }

  transaction(txId: Uint8Array): DevnetTransaction | undefined {
    return this.byTxId.get(bytesToHex(txId));
  }

  conversionIdOf(subnetId: Uint8Array): Uint8Array | undefined {
    return this.isL1(subnetId) ? this.genesis.conversion.conversionId : undefined;
  }

  view(): PChainStateView {
    return {
      conversionHappened: (subnetId, conversionId) => {
        const actual = this.conversionIdOf(subnetId);
        return actual !== undefined && bytesEqual(actual, conversionId);
      },
      conversionIdOf: (subnetId) => this.conversionIdOf(subnetId),
      validatorExists: (validationId) => this.l1Validator(validationId) !== undefined,
      currentWeightAndNonce: (validationId) => {
        const record = this.l1Validator(validationId);
        return record ? { weight: record.weight, minNonce: record.minNonce } : undefined;
      },
    };
  }
}
