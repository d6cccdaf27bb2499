// The devnet's world, built reproducibly from a seed: an L1 (subnet, its EVM chain, its
// validator manager) with N keyed validators of uneven weight, a shared BLS key, inactive
// validators that show up as the keyless NodeID-111111111111111111116DBWJs entry, a Primary
// Network set, and the P-Chain history that made the L1: a ConvertSubnetToL1Tx, a
// RegisterL1ValidatorTx and a SetL1ValidatorWeightTx (real bytes, real signed Warp messages),
// plus a second weight change still Processing. The simulated P-Chain node serves it and the
// devnet's signers sign with its keys and judge P-Chain messages against its state.
//
// History (heights): the conversion makes the L1 with at most MAX_CONVERSION_VALIDATORS active
// validators plus the inactive ones; the other validators are registered one block later; the
// featured registration adds the last validator; then one validator's weight changes. So
// getValidatorsAt at an older height gives a different set than the current one.
//
// Proofs of possession cost ~20 ms each (noble only), so only the validators in a transaction or
// in the Primary Network set get one; that keeps a 1,000-validator genesis well under a second
// or two. Everything else is blst.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { loadBackend } from '../bls/index.js';
import type { BlsBackend } from '../bls/types.js';
import type { ValidatorEntry } from '../validators/canonical-set.js';
import { PublicKeyCache } from '../validators/key-cache.js';
import { EMPTY_NODE_ID } from '../node/pchain-results.js';
import { cb58Decode, cb58Encode, nodeIdToString, P_CHAIN_ID } from '../warp/cb58.js';
import { bytesToHex } from '../warp/hex.js';
import {
  conversionId as computeConversionId,
  encodeL1Message,
  type ConversionData,
  type PChainOwner,
  type RegisterL1Validator,
  validationIdFromIndex,
  validationIdOfRegistration,
} from '../warp/l1-messages.js';
import { encodeAddressedCall } from '../warp/payload.js';
import { newUnsignedMessage } from '../warp/unsigned-message.js';
import { chooseByzantine, type FaultMode } from './genesis-byzantine.js';
import { DevnetGenesisError } from './genesis-errors.js';
import { derive, deriveBlsSecretKey, deriveNodeId, deriveSecp256k1SecretKey, deriveU64 } from './genesis-keys.js';
import { proofOfPossession } from './genesis-pop.js';
import { secretKeyIndex, signOverQuorum } from './genesis-warp.js';
import { shortIdOfPublicKey } from './pchain-address.js';
import { signPChainTx, type BaseTxFields, type ConvertSubnetToL1Validator, type SignedPChainTx } from './pchain-tx.js';

export { DevnetGenesisError } from './genesis-errors.js';
export { FAULT_MODES, type FaultMode } from './genesis-byzantine.js';

export const DEFAULT_NETWORK_ID = 12345;
export const MIN_VALIDATORS = 2;
export const MAX_VALIDATORS = 10_000;
/** Active validators created by the ConvertSubnetToL1Tx; the rest join by registration. */
export const MAX_CONVERSION_VALIDATORS = 10;
/** Validators of the Primary Network set (the first ones of the L1, same keys). */
export const MAX_PRIMARY_VALIDATORS = 10;
/** Inactive L1 validators (balance 0): they only count as the keyless entry's weight. */
export const INACTIVE_VALIDATORS = 2;
export const KEYLESS_NODE_ID = EMPTY_NODE_ID;

/** P-Chain heights of the devnet's history. */
export const HEIGHTS = {
  conversion: 120,
  bulkRegistration: 121,
  registration: 125,
  weightChange: 130,
  proposed: 134,
  current: 136,
} as const;

/** 2025-01-01T00:00:00Z: the devnet's clock starts here so that every field is reproducible. */
export const GENESIS_TIME = 1_735_689_600n;
const SECONDS_PER_BLOCK = 2n;
const NANO_AVAX = 1_000_000_000n;

/** The `nonce` of the committed SetL1ValidatorWeightTx; the validator's minNonce becomes nonce + 1. */
export const WEIGHT_CHANGE_NONCE = 1n;

export interface GenesisOptions {
  /** Number of keyed, active L1 validators (node IDs), each with its own signer. */
  validators: number;
  seed: string;
  /** How many of them misbehave; the honest rest keeps more than 80% of the weight. */
  byzantine?: number;
  networkId?: number;
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

export type TxStatus = 'Committed' | 'Processing';

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
  heights: typeof HEIGHTS;

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

/** Known IDs of real networks, so a devnet on network 1, 5 or 12345 prints familiar ones. */
const WELL_KNOWN_IDS: ReadonlyMap<number, { avaxAssetId: string; xChainId: string; cChainId: string }> = new Map([
  [1, { avaxAssetId: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z', xChainId: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM', cChainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5' }],
  [5, { avaxAssetId: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK', xChainId: '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm', cChainId: 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp' }],
  [12345, { avaxAssetId: '2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe', xChainId: '2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed', cChainId: '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC' }],
]);

/** Unix time of a P-Chain height in the devnet's history. */
export function timeAtHeight(height: number): bigint {
  return GENESIS_TIME + BigInt(height) * SECONDS_PER_BLOCK;
}

function checkOptions(options: GenesisOptions): Required<GenesisOptions> {
  const { validators, seed, byzantine = 0, networkId = DEFAULT_NETWORK_ID } = options;
  if (!Number.isInteger(validators) || validators < MIN_VALIDATORS || validators > MAX_VALIDATORS) {
    throw new DevnetGenesisError('validators', `must be a whole number from ${MIN_VALIDATORS} to ${MAX_VALIDATORS}, got ${validators}`);
  }
  if (typeof seed !== 'string') throw new DevnetGenesisError('seed', 'must be a string');
  if (!Number.isInteger(networkId) || networkId < 1 || networkId > 0xffff_ffff) {
    throw new DevnetGenesisError('network-id', `must be a uint32 other than 0, got ${networkId}`);
  }
  if (!Number.isInteger(byzantine) || byzantine < 0) {
    throw new DevnetGenesisError('byzantine', `must be a whole number of validators, got ${byzantine}`);
  }
  return { validators, seed, byzantine, networkId };
}

/**
 * Uneven weights: about a tenth of the validators are heavy (above 2^53, so that a client that
 * reads JSON numbers as doubles computes a wrong conversionID), the rest a long tail spread
 * 15-fold. Scaled down for very large sets so the total stays far below 2^64.
 */
function l1Weight(seed: string, index: number, heavyCount: number, scale: bigint): bigint {
  const r = deriveU64(seed, 'validator', index, 'weight');
  const weight = index < heavyCount ? 9_100_000_000_000_000n + (r % 6_000_000_000_000_000n) : 200_000_000_000_000n + (r % 2_800_000_000_000_000n);
  return weight / scale;
}

function ownerOf(shortId: Uint8Array): PChainOwner {
  return { threshold: 1, addresses: [shortId] };
}

interface KeyedNode {
  nodeIdBytes: Uint8Array;
  nodeId: string;
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

function keyedNode(bls: BlsBackend, nodeIdBytes: Uint8Array, secretKey: Uint8Array): KeyedNode {
  return {
    nodeIdBytes,
    nodeId: nodeIdToString(nodeIdBytes),
    secretKey,
    publicKey: bls.publicKeyOf(bls.secretKeyFromBytes(secretKey)).bytes,
  };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** One UTXO in, change out, as every devnet transaction pays: `spent` is fee plus balances. */
function baseTx(genesisIds: { networkId: number; avaxAssetId: Uint8Array; seed: string; owner: Uint8Array }, label: string, spent: bigint): BaseTxFields {
  const change = 1_000n * NANO_AVAX;
  return {
    networkId: genesisIds.networkId,
    blockchainId: P_CHAIN_ID,
    outputs: [{ assetId: genesisIds.avaxAssetId, amount: change, owners: { locktime: 0n, threshold: 1, addresses: [genesisIds.owner] } }],
    inputs: [{ txId: derive(genesisIds.seed, 'utxo', label), outputIndex: 0, assetId: genesisIds.avaxAssetId, amount: change + spent, signatureIndices: [0] }],
    memo: new Uint8Array(0),
  };
}

/** Builds the devnet. Deterministic in its options; throws DevnetGenesisError for impossible ones. */
export function buildGenesis(options: GenesisOptions): DevnetGenesis {
  const { validators: n, seed, byzantine: byzantineCount, networkId } = checkOptions(options);
  const bls = loadBackend();
  const keyCache = new PublicKeyCache(bls, n + INACTIVE_VALIDATORS + 8);

  // --- identities -------------------------------------------------------------------------------
  const known = WELL_KNOWN_IDS.get(networkId);
  const subnetId = derive(seed, 'subnet');
  const blockchainId = derive(seed, 'l1-chain');
  const managerAddress = derive(seed, 'validator-manager').slice(0, 20);
  const xChainId = known ? cb58Decode(known.xChainId) : derive(seed, 'x-chain');
  const cChainId = known ? cb58Decode(known.cChainId) : derive(seed, 'c-chain');
  const avaxAssetId = known ? cb58Decode(known.avaxAssetId) : derive(seed, 'avax');
  const ownerSecret = deriveSecp256k1SecretKey(seed, 'owner');
  const ownerShortId = shortIdOfPublicKey(secp256k1.getPublicKey(ownerSecret, true));
  const owner = ownerOf(ownerShortId);
  const ids = { networkId, avaxAssetId, seed, owner: ownerShortId };

  // --- keys and weights ---------------------------------------------------------------------------
  // Validators 1 and 2 share validator 1's BLS key: two node IDs, one canonical validator.
  const sharedPair: [number, number] | null = n >= 3 ? [1, 2] : null;
  const heavyCount = Math.max(1, Math.round(n / 10));
  const scale = BigInt(Math.max(1, Math.ceil(n / 2000)));
  const nodes: KeyedNode[] = [];
  const initialWeights: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const secret = sharedPair && i === sharedPair[1] ? nodes[sharedPair[0]]!.secretKey : deriveBlsSecretKey(seed, 'validator', i, 'bls');
    nodes.push(keyedNode(bls, deriveNodeId(seed, 'validator', i, 'node'), secret));
    initialWeights.push(l1Weight(seed, i, heavyCount, scale));
  }
  const inactive: { node: KeyedNode; weight: bigint }[] = [];
  for (let j = 0; j < INACTIVE_VALIDATORS; j++) {
    inactive.push({
      node: keyedNode(bls, deriveNodeId(seed, 'inactive', j, 'node'), deriveBlsSecretKey(seed, 'inactive', j, 'bls')),
      weight: (100_000_000_000_000n + (deriveU64(seed, 'inactive', j, 'weight') % 400_000_000_000_000n)) / scale,
    });
  }
  const allNodeIds = new Set([...nodes, ...inactive.map((x) => x.node)].map((x) => x.nodeId));
  if (allNodeIds.size !== n + INACTIVE_VALIDATORS) throw new Error('devnet node IDs collide; use another seed');

  // --- the ConvertSubnetToL1Tx ------------------------------------------------------------------------
  const conversionActive = Math.min(n - 1, MAX_CONVERSION_VALIDATORS);
  const conversionBalance = 10n * NANO_AVAX;
  type Member = { node: KeyedNode; weight: bigint; balance: bigint; active: boolean; validatorIndex?: number };
  const members: Member[] = [
    ...nodes.slice(0, conversionActive).map((node, i) => ({ node, weight: initialWeights[i]!, balance: conversionBalance, active: true, validatorIndex: i })),
    ...inactive.map(({ node, weight }) => ({ node, weight, balance: 0n, active: false })),
  ].sort((a, b) => compareBytes(a.node.nodeIdBytes, b.node.nodeIdBytes));
  const convertValidators: ConvertSubnetToL1Validator[] = members.map((m) => ({
    nodeId: m.node.nodeIdBytes,
    weight: m.weight,
    balance: m.balance,
    publicKey: m.node.publicKey,
    proofOfPossession: proofOfPossession(m.node.secretKey),
    remainingBalanceOwner: owner,
    deactivationOwner: owner,
  }));
  const conversionData: ConversionData = {
    subnetId,
    managerChainId: blockchainId,
    managerAddress,
    validators: members.map((m) => ({ nodeId: m.node.nodeIdBytes, blsPublicKey: m.node.publicKey, weight: m.weight })),
  };
  const conversionTx = signPChainTx(
    {
      kind: 'ConvertSubnetToL1Tx',
      base: baseTx(ids, 'convert', 1_000_000n + conversionBalance * BigInt(conversionActive)),
      subnetId,
      chainId: blockchainId,
      address: managerAddress,
      validators: convertValidators,
      subnetAuthSignatureIndices: [0],
    },
    ownerSecret,
  );

  const records: L1ValidatorRecord[] = [];
  const validationIds: Uint8Array[] = new Array<Uint8Array>(n);
  members.forEach((m, position) => {
    const validationId = validationIdFromIndex(subnetId, position);
    if (m.validatorIndex !== undefined) validationIds[m.validatorIndex] = validationId;
    records.push({
      validationId,
      nodeId: m.node.nodeId,
      nodeIdBytes: m.node.nodeIdBytes,
      publicKey: m.node.publicKey,
      weight: m.weight,
      weightHistory: [{ height: HEIGHTS.conversion, weight: m.weight }],
      minNonce: 0n,
      balance: m.active ? conversionBalance - 123_456_789n : 0n,
      startTime: timeAtHeight(HEIGHTS.conversion),
      remainingBalanceOwner: owner,
      deactivationOwner: owner,
      joinedBy: 'conversion',
    });
  });

  // --- registrations ------------------------------------------------------------------------------------
  const registrationBalance = 5n * NANO_AVAX;
  const registerPayload = (i: number, height: number): RegisterL1Validator => ({
    type: 'RegisterL1Validator',
    subnetId,
    nodeId: nodes[i]!.nodeIdBytes,
    blsPublicKey: nodes[i]!.publicKey,
    expiry: timeAtHeight(height) + 3600n,
    remainingBalanceOwner: owner,
    disableOwner: owner,
    weight: initialWeights[i]!,
  });
  const addRegistered = (i: number, height: number, validationId: Uint8Array): void => {
    validationIds[i] = validationId;
    records.push({
      validationId,
      nodeId: nodes[i]!.nodeId,
      nodeIdBytes: nodes[i]!.nodeIdBytes,
      publicKey: nodes[i]!.publicKey,
      weight: initialWeights[i]!,
      weightHistory: [{ height, weight: initialWeights[i]! }],
      minNonce: 0n,
      balance: registrationBalance - 23_456_789n,
      startTime: timeAtHeight(height),
      remainingBalanceOwner: owner,
      deactivationOwner: owner,
      joinedBy: 'registration',
    });
  };
  // The validators between the conversion and the featured registration joined in one block;
  // their transactions are not kept (nobody holds their IDs), only their effect on the state.
  for (let i = conversionActive; i < n - 1; i++) {
    addRegistered(i, HEIGHTS.bulkRegistration, validationIdOfRegistration(encodeL1Message(registerPayload(i, HEIGHTS.bulkRegistration))));
  }

  const secrets = secretKeyIndex(nodes);
  const l1SetAt = (height: number): ValidatorEntry[] => l1EntriesAt(records, height);
  const fromManager = (payload: Uint8Array) => newUnsignedMessage(networkId, blockchainId, encodeAddressedCall(managerAddress, payload));

  const featured = n - 1;
  const featuredPayload = registerPayload(featured, HEIGHTS.registration);
  const featuredPayloadBytes = encodeL1Message(featuredPayload);
  const registrationMessage = signOverQuorum(fromManager(featuredPayloadBytes), l1SetAt(HEIGHTS.registration - 1), secrets, bls, undefined, keyCache);
  const registrationTx = signPChainTx(
    {
      kind: 'RegisterL1ValidatorTx',
      base: baseTx(ids, 'register', 1_000_000n + registrationBalance),
      balance: registrationBalance,
      proofOfPossession: proofOfPossession(nodes[featured]!.secretKey),
      message: registrationMessage,
    },
    ownerSecret,
  );
  const featuredValidationId = validationIdOfRegistration(featuredPayloadBytes);
  addRegistered(featured, HEIGHTS.registration, featuredValidationId);

  // --- the weight change (and a later one still processing) -------------------------------------------
  const weightTarget = [...Array(conversionActive).keys()].filter((i) => !sharedPair?.includes(i)).pop() ?? 0;
  const targetRecord = records.find((r) => r.validationId === validationIds[weightTarget])!;
  const newWeight = targetRecord.weight + targetRecord.weight / 2n;
  const weightPayload = (nonce: bigint, weight: bigint) =>
    encodeL1Message({ type: 'L1ValidatorWeight', validationId: targetRecord.validationId, nonce, weight });
  const weightMessage = signOverQuorum(fromManager(weightPayload(WEIGHT_CHANGE_NONCE, newWeight)), l1SetAt(HEIGHTS.weightChange - 1), secrets, bls, undefined, keyCache);
  const weightTx = signPChainTx({ kind: 'SetL1ValidatorWeightTx', base: baseTx(ids, 'weight', 1_000_000n), message: weightMessage }, ownerSecret);
  targetRecord.weight = newWeight;
  targetRecord.weightHistory.push({ height: HEIGHTS.weightChange, weight: newWeight });
  targetRecord.minNonce = WEIGHT_CHANGE_NONCE + 1n;
  initialWeights[weightTarget] = newWeight;

  const pendingNonce = WEIGHT_CHANGE_NONCE + 1n;
  const pendingWeight = newWeight * 2n;
  const pendingMessage = signOverQuorum(fromManager(weightPayload(pendingNonce, pendingWeight)), l1SetAt(HEIGHTS.current), secrets, bls, undefined, keyCache);
  const pendingTx = signPChainTx({ kind: 'SetL1ValidatorWeightTx', base: baseTx(ids, 'weight-pending', 1_000_000n), message: pendingMessage }, ownerSecret);

  records.sort((a, b) => compareBytes(a.nodeIdBytes, b.nodeIdBytes));

  // --- weights, byzantine validators ------------------------------------------------------------------
  const keylessWeight = inactive.reduce((sum, x) => sum + x.weight, 0n);
  const activeWeight = initialWeights.reduce((sum, w) => sum + w, 0n);
  const totalWeight = activeWeight + keylessWeight;
  const candidates = initialWeights.map((weight, index) => ({ index, weight })).filter((c) => !sharedPair?.includes(c.index));
  const faults = chooseByzantine(candidates, byzantineCount, totalWeight, activeWeight);

  const validators: DevnetValidator[] = nodes.map((node, index) => {
    const fault = faults.get(index);
    return {
      index,
      nodeId: node.nodeId,
      nodeIdBytes: node.nodeIdBytes,
      secretKey: node.secretKey,
      publicKey: node.publicKey,
      weight: initialWeights[index]!,
      validationId: validationIds[index]!,
      ...(fault ? { fault } : {}),
    };
  });
  const byzantine = validators.filter((v) => v.fault).map((v) => v.nodeId);
  const honestWeight = validators.filter((v) => !v.fault).reduce((sum, v) => sum + v.weight, 0n);

  // --- the Primary Network ----------------------------------------------------------------------------
  const primaryValidators: PrimaryValidator[] = nodes.slice(0, Math.min(n, MAX_PRIMARY_VALIDATORS)).map((node, i) => {
    const weight = 2_000n * NANO_AVAX + (deriveU64(seed, 'primary', i, 'stake') % (500_000n * NANO_AVAX));
    return {
      nodeId: node.nodeId,
      nodeIdBytes: node.nodeIdBytes,
      publicKey: node.publicKey,
      proofOfPossession: proofOfPossession(node.secretKey),
      weight,
      txId: derive(seed, 'primary', i, 'tx'),
      startTime: GENESIS_TIME,
      endTime: GENESIS_TIME + 10n * 365n * 86_400n,
      potentialReward: weight / 10n,
      delegationShares: 20_000,
      rewardOwner: ownerShortId,
    };
  });

  // --- transactions ----------------------------------------------------------------------------------
  const transactions: DevnetTransaction[] = [
    { id: cb58Encode(conversionTx.id), tx: conversionTx, status: 'Committed', height: HEIGHTS.conversion },
    { id: cb58Encode(registrationTx.id), tx: registrationTx, status: 'Committed', height: HEIGHTS.registration },
    { id: cb58Encode(weightTx.id), tx: weightTx, status: 'Committed', height: HEIGHTS.weightChange },
    { id: cb58Encode(pendingTx.id), tx: pendingTx, status: 'Processing' },
  ];

  const self = nodes[0]!;
  return {
    seed,
    networkId,
    subnetId,
    blockchainId,
    managerAddress,
    xChainId,
    cChainId,
    avaxAssetId,
    genesisTime: GENESIS_TIME,
    validators,
    sharedKeyNodeIds: sharedPair ? [nodes[sharedPair[0]]!.nodeId, nodes[sharedPair[1]]!.nodeId] : null,
    keylessNodeId: KEYLESS_NODE_ID,
    keylessWeight,
    totalWeight,
    byzantine,
    honestWeight,
    l1Validators: records,
    primaryValidators,
    currentHeight: HEIGHTS.current,
    proposedHeight: HEIGHTS.proposed,
    heights: HEIGHTS,
    owner: { secretKey: ownerSecret, shortId: ownerShortId },
    conversion: { txId: conversionTx.id, data: conversionData, conversionId: computeConversionId(conversionData), height: HEIGHTS.conversion },
    registration: {
      txId: registrationTx.id,
      validationId: featuredValidationId,
      payload: featuredPayload,
      signedMessage: registrationMessage,
      height: HEIGHTS.registration,
    },
    weightChange: {
      txId: weightTx.id,
      validationId: targetRecord.validationId,
      nonce: WEIGHT_CHANGE_NONCE,
      weight: newWeight,
      signedMessage: weightMessage,
      height: HEIGHTS.weightChange,
    },
    pendingWeightChange: { txId: pendingTx.id, validationId: targetRecord.validationId, nonce: pendingNonce, weight: pendingWeight, signedMessage: pendingMessage },
    l1ConversionTxId: cb58Encode(conversionTx.id),
    transactions,
    node: { nodeId: self.nodeId, publicKey: self.publicKey, proofOfPossession: proofOfPossession(self.secretKey) },
  };
}

/**
 * The L1's validator set at `height` as the P-Chain's validator manager reports it: active
 * validators with their keys, and one keyless entry carrying the inactive validators' weight.
 * Empty before the conversion.
 */
export function l1EntriesAt(records: readonly L1ValidatorRecord[], height: number): ValidatorEntry[] {
  const entries: ValidatorEntry[] = [];
  let keyless = 0n;
  for (const record of records) {
    const weight = weightAt(record, height);
    if (weight === undefined) continue;
    if (record.balance === 0n) keyless += weight;
    else entries.push({ nodeId: record.nodeId, weight, publicKey: record.publicKey });
  }
  if (keyless > 0n) entries.push({ nodeId: KEYLESS_NODE_ID, weight: keyless, publicKey: null });
  return entries;
}

/** A record's weight at `height`, or undefined when it was not yet a validator. */
export function weightAt(record: L1ValidatorRecord, height: number): bigint | undefined {
  let weight: bigint | undefined;
  for (const step of record.weightHistory) {
    if (step.height <= height) weight = step.weight;
  }
  return weight;
}

/** Hex of a validation ID, the key pchain-state indexes records by. */
export function validationKey(validationId: Uint8Array): string {
  return bytesToHex(validationId);
}
