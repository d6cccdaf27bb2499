// The devnet's world, built reproducibly from a seed in named stages: the network's identities,
// the validators' keys and weights, the ConvertSubnetToL1Tx, the registrations, the weight
// change, the byzantine choice and the Primary Network set. The L1 (subnet, its EVM chain, its
// validator manager) has N keyed validators of uneven weight, a shared BLS key, and inactive
// validators that show up as the keyless NodeID-111111111111111111116DBWJs entry; its P-Chain
// history is real transactions with real signed Warp messages (see history.ts).
//
// Proofs of possession cost ~20 ms each (noble only), so only the validators in a transaction or
// in the Primary Network set get one; that keeps a 1,000-validator genesis well under a second
// or two. Everything else is blst.
import { loadBackend } from '../../bls/index.js';
import { PublicKeyCache } from '../../validators/key-cache.js';
import { cb58Encode } from '../../warp/cb58.js';
import { conversionId } from '../../warp/l1-messages.js';
import { chooseByzantine } from './byzantine.js';
import { convertSubnetToL1 } from './conversion.js';
import { DevnetGenesisError } from './errors.js';
import { GENESIS_TIME, HEIGHTS, KEYLESS_NODE_ID, WEIGHT_CHANGE_NONCE } from './history.js';
import { networkIdentities } from './identities.js';
import { proofOfPossession } from './pop.js';
import { primaryNetwork } from './primary-network.js';
import { registerFeatured, registerInBulk } from './registrations.js';
import type { DevnetGenesis, DevnetTransaction, DevnetValidator, GenesisOptions } from './types.js';
import { INACTIVE_VALIDATORS, validatorKeys, type ValidatorKeys } from './validator-keys.js';
import { managerSigner } from './warp.js';
import { changeWeight } from './weight-change.js';

const DEFAULT_NETWORK_ID = 12345;
const MIN_VALIDATORS = 2;
const MAX_VALIDATORS = 10_000;

function checkOptions(options: GenesisOptions): Required<GenesisOptions> {
  const { validators, seed, byzantine = 0, networkId = DEFAULT_NETWORK_ID, avalanchegoNodes = () => false } = options;
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
  return { validators, seed, byzantine, networkId, avalanchegoNodes };
}

/**
 * The active validators with their current weights and faults: the `count` lightest of those
 * that share no key misbehave, as long as the honest rest keeps more than 80% of the weight.
 */
function assignFaults(keys: ValidatorKeys, currentWeights: bigint[], validationIds: Uint8Array[], count: number) {
  const keylessWeight = keys.inactive.reduce((sum, x) => sum + x.weight, 0n);
  const activeWeight = currentWeights.reduce((sum, w) => sum + w, 0n);
  const totalWeight = activeWeight + keylessWeight;
  const candidates = currentWeights.map((weight, index) => ({ index, weight })).filter((c) => !keys.sharedPair?.includes(c.index));
  const faults = chooseByzantine(candidates, count, totalWeight, activeWeight);
  const validators: DevnetValidator[] = keys.nodes.map((node, index) => {
    const fault = faults.get(index);
    return {
      index,
      nodeId: node.nodeId,
      nodeIdBytes: node.nodeIdBytes,
      secretKey: node.secretKey,
      publicKey: node.publicKey,
      weight: currentWeights[index]!,
      validationId: validationIds[index]!,
      ...(fault ? { fault } : {}),
      ...(node.staking ? { staking: node.staking } : {}),
    };
  });
  const honestWeight = validators.filter((v) => !v.fault).reduce((sum, v) => sum + v.weight, 0n);
  return { validators, keylessWeight, totalWeight, honestWeight };
}

/** Builds the devnet. Deterministic in its options; throws DevnetGenesisError for impossible ones. */
export function buildGenesis(options: GenesisOptions): DevnetGenesis {
  const { validators: n, seed, byzantine: byzantineCount, networkId, avalanchegoNodes } = checkOptions(options);
  const bls = loadBackend();

  const ids = networkIdentities(seed, networkId);
  const keys = validatorKeys(bls, seed, n, avalanchegoNodes);
  const conversion = convertSubnetToL1(ids, keys);
  const { records, validationIds } = conversion.state;
  const sign = managerSigner(ids, records, keys.nodes, bls, new PublicKeyCache(bls, n + INACTIVE_VALIDATORS + 8));
  registerInBulk(ids, keys, conversion);
  const registration = registerFeatured(ids, keys, conversion.state, sign);
  const weightChange = changeWeight(ids, keys, conversion, sign);
  records.sort((a, b) => Buffer.compare(a.nodeIdBytes, b.nodeIdBytes));

  const currentWeights = keys.initialWeights.map((w, i) => (i === weightChange.validatorIndex ? weightChange.committed.weight : w));
  const { validators, keylessWeight, totalWeight, honestWeight } = assignFaults(keys, currentWeights, validationIds, byzantineCount);
  const primaryValidators = primaryNetwork(seed, keys.nodes, ids.owner.shortId);

  const { committed, pending } = weightChange;
  const transactions: DevnetTransaction[] = [
    { id: cb58Encode(conversion.tx.id), tx: conversion.tx, status: 'Committed', height: HEIGHTS.conversion },
    { id: cb58Encode(registration.tx.id), tx: registration.tx, status: 'Committed', height: HEIGHTS.registration },
    { id: cb58Encode(committed.tx.id), tx: committed.tx, status: 'Committed', height: HEIGHTS.weightChange },
    { id: cb58Encode(pending.tx.id), tx: pending.tx, status: 'Processing' },
  ];
  const self = keys.nodes[0]!;
  const shared = keys.sharedPair;
  return {
    seed,
    networkId,
    subnetId: ids.subnetId,
    blockchainId: ids.blockchainId,
    managerAddress: ids.managerAddress,
    xChainId: ids.xChainId,
    cChainId: ids.cChainId,
    avaxAssetId: ids.avaxAssetId,
    genesisTime: GENESIS_TIME,
    validators,
    sharedKeyNodeIds: shared ? [keys.nodes[shared[0]]!.nodeId, keys.nodes[shared[1]]!.nodeId] : null,
    keylessNodeId: KEYLESS_NODE_ID,
    keylessWeight,
    totalWeight,
    byzantine: validators.filter((v) => v.fault).map((v) => v.nodeId),
    honestWeight,
    l1Validators: records,
    primaryValidators,
    currentHeight: HEIGHTS.current,
    proposedHeight: HEIGHTS.proposed,
    heights: HEIGHTS,
    owner: { secretKey: ids.owner.secretKey, shortId: ids.owner.shortId },
    conversion: { txId: conversion.tx.id, data: conversion.data, conversionId: conversionId(conversion.data), height: HEIGHTS.conversion },
    registration: { txId: registration.tx.id, validationId: registration.validationId, payload: registration.payload, signedMessage: registration.signedMessage, height: HEIGHTS.registration },
    weightChange: {
      txId: committed.tx.id,
      validationId: committed.validationId,
      nonce: WEIGHT_CHANGE_NONCE,
      weight: committed.weight,
      signedMessage: committed.signedMessage,
      height: HEIGHTS.weightChange,
    },
    pendingWeightChange: { txId: pending.tx.id, validationId: pending.validationId, nonce: pending.nonce, weight: pending.weight, signedMessage: pending.signedMessage },
    l1ConversionTxId: cb58Encode(conversion.tx.id),
    transactions,
    node: { nodeId: self.nodeId, publicKey: self.publicKey, proofOfPossession: proofOfPossession(self.secretKey) },
  };
}
