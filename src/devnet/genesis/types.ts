// What a devnet genesis is: the L1, its validators with their keys, the Primary Network set and
// the P-Chain history that made the L1. The simulated P-Chain node serves it and the devnet's
// signers sign with its keys and judge P-Chain messages against it.
import type { ConversionData, PChainOwner, RegisterL1Validator } from '../../warp/l1-messages.js';
import type { SignedPChainTx } from '../pchain/tx.js';
import type { FaultMode } from '../../signer/faults.js';

export interface GenesisOptions {
  /** Number of keyed, active L1 validators (node IDs), each with its own signer. */
  validators: number;
  seed: string;
  /** How many of them misbehave; the honest rest keeps more than 80% of the weight. */
  byzantine?: number;
  networkId?: number;
  /**
   * Which validators (by index) run as simulated avalanchego nodes: they get a staking
   * certificate, and their NodeID is its hash. Default none (every NodeID from the seed).
   */
  avalanchegoNodes?: (index: number) => boolean;
}

/** One active L1 validator with its signing key: what a devnet signer runs as. */
export interface DevnetValidator {
  /** Position in `genesis.validators`. */
  index: number;
  /** `NodeID-…` */
  nodeId: string;
  nodeIdBytes: Uint8Array;
  /** 32-byte BLS secret, as in avalanchego's signer.key. */
  secretKey: Uint8Array;
  /** 48-byte compressed BLS key. */
  publicKey: Uint8Array;
  /** Current L1 weight. */
  weight: bigint;
  validationId: Uint8Array;
  /** Set for byzantine validators: how this one misbehaves. */
  fault?: FaultMode;
  /** Staking certificate and key (PEM) of a validator that runs as a simulated avalanchego node. */
  staking?: { certPem: string; keyPem: string };
}

/** An L1 validator as the P-Chain's state holds it (active or not). */
export interface L1ValidatorRecord {
  validationId: Uint8Array;
  nodeId: string;
  nodeIdBytes: Uint8Array;
  publicKey: Uint8Array;
  /** Current weight. */
  weight: bigint;
  /** The weight from each height on, ascending; before the first entry it was not a validator. */
  weightHistory: { height: number; weight: bigint }[];
  /** The least nonce a future L1ValidatorWeight may carry. */
  minNonce: bigint;
  /** Remaining balance for the continuous fee, nAVAX; 0 means inactive. */
  balance: bigint;
  /** Unix seconds. */
  startTime: bigint;
  remainingBalanceOwner: PChainOwner;
  deactivationOwner: PChainOwner;
  joinedBy: 'conversion' | 'registration';
}

/** A Primary Network validator (AddPermissionlessValidatorTx staker). */
export interface PrimaryValidator {
  nodeId: string;
  nodeIdBytes: Uint8Array;
  publicKey: Uint8Array;
  proofOfPossession: Uint8Array;
  /** Stake, nAVAX. */
  weight: bigint;
  txId: Uint8Array;
  startTime: bigint;
  endTime: bigint;
  potentialReward: bigint;
  /** Delegation fee in millionths (20_000 = 2%). */
  delegationShares: number;
  rewardOwner: Uint8Array;
}

type TxStatus = 'Committed' | 'Processing';

export interface DevnetTransaction {
  /** cb58 ID. */
  id: string;
  tx: SignedPChainTx;
  status: TxStatus;
  /** Height of the block that accepted it; absent while Processing. */
  height?: number;
}

export interface DevnetGenesis {
  seed: string;
  networkId: number;
  /** The L1. */
  subnetId: Uint8Array;
  /** Its EVM chain: the chain devnet signers sign for and the validator manager lives on. */
  blockchainId: Uint8Array;
  /** The validator manager contract (20 bytes) on `blockchainId`. */
  managerAddress: Uint8Array;
  xChainId: Uint8Array;
  cChainId: Uint8Array;
  avaxAssetId: Uint8Array;
  /** Unix seconds of height 0. */
  genesisTime: bigint;

  /** The N active, keyed L1 validators. */
  validators: DevnetValidator[];
  /** The two node IDs registered with one BLS key (merged in the canonical set), when N ≥ 3. */
  sharedKeyNodeIds: [string, string] | null;
  /** NodeID-111111111111111111116DBWJs: the summed weight of inactive validators; never signs. */
  keylessNodeId: string;
  keylessWeight: bigint;
  /** Current total L1 weight, keyless weight included. */
  totalWeight: bigint;
  /** Node IDs of the misbehaving validators. */
  byzantine: string[];
  /** Current weight of the validators without a fault. */
  honestWeight: bigint;

  /** Every L1 validator in the P-Chain's state (inactive ones too), sorted by node ID bytes. */
  l1Validators: L1ValidatorRecord[];
  primaryValidators: PrimaryValidator[];

  currentHeight: number;
  proposedHeight: number;
  heights: HistoryHeights;

  /** The secp256k1 key owning the devnet's UTXOs and the subnet (P-Chain side). */
  owner: { secretKey: Uint8Array; shortId: Uint8Array };

  conversion: { txId: Uint8Array; data: ConversionData; conversionId: Uint8Array; height: number };
  registration: {
    txId: Uint8Array;
    validationId: Uint8Array;
    payload: RegisterL1Validator;
    /** Signed Warp message from the L1's chain carrying the RegisterL1Validator. */
    signedMessage: Uint8Array;
    height: number;
  };
  weightChange: { txId: Uint8Array; validationId: Uint8Array; nonce: bigint; weight: bigint; signedMessage: Uint8Array; height: number };
  /** A later SetL1ValidatorWeightTx the node reports as Processing: not in the state yet. */
  pendingWeightChange: { txId: Uint8Array; validationId: Uint8Array; nonce: bigint; weight: bigint; signedMessage: Uint8Array };
  /** cb58 of conversion.txId, as the devnet's JSON line prints it. */
  l1ConversionTxId: string;
  transactions: DevnetTransaction[];

  /** The simulated node's own identity (info.getNodeID): validator 0. */
  node: { nodeId: string; publicKey: Uint8Array; proofOfPossession: Uint8Array };
}

/** The P-Chain heights of the devnet's history (history.ts has the values). */
export interface HistoryHeights {
  readonly conversion: number;
  readonly bulkRegistration: number;
  readonly registration: number;
  readonly weightChange: number;
  readonly proposed: number;
  readonly current: number;
}
