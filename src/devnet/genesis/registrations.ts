// The fourth stage of a genesis: the validators that join the L1 after its conversion. Most of
// them join in one block without their transactions being kept; the last one, the featured
// registration, has a real RegisterL1ValidatorTx carrying the RegisterL1Validator message the
// L1's validators signed, so clients can fetch and check it.
import { encodeL1Message, validationIdOfRegistration, type RegisterL1Validator } from '../../warp/l1-messages.js';
import { signPChainTx, type SignedPChainTx } from '../pchain/tx.js';
import type { Conversion, L1ValidatorState } from './conversion.js';
import { HEIGHTS, timeAtHeight } from './history.js';
import { baseTx, NANO_AVAX, type NetworkIdentities } from './identities.js';
import { proofOfPossession } from './pop.js';
import type { ValidatorKeys } from './validator-keys.js';
import type { ManagerSigner } from './warp.js';

const REGISTRATION_BALANCE = 5n * NANO_AVAX;

interface FeaturedRegistration {
  tx: SignedPChainTx;
  validationId: Uint8Array;
  payload: RegisterL1Validator;
  /** Signed Warp message from the L1's chain carrying the RegisterL1Validator. */
  signedMessage: Uint8Array;
}

/** The RegisterL1Validator message that lets validator `i` join at `height`. */
function registerPayload(ids: NetworkIdentities, keys: ValidatorKeys, i: number, height: number): RegisterL1Validator {
  const owner = ids.owner.pchainOwner;
  return {
    type: 'RegisterL1Validator',
    subnetId: ids.subnetId,
    nodeId: keys.nodes[i]!.nodeIdBytes,
    blsPublicKey: keys.nodes[i]!.publicKey,
    expiry: timeAtHeight(height) + 3600n,
    remainingBalanceOwner: owner,
    disableOwner: owner,
    weight: keys.initialWeights[i]!,
  };
}

/** Validator `i` joins the state at `height` by a registration with this validation ID. */
function addRegistered(state: L1ValidatorState, ids: NetworkIdentities, keys: ValidatorKeys, i: number, height: number, validationId: Uint8Array): void {
  const owner = ids.owner.pchainOwner;
  const node = keys.nodes[i]!;
  state.validationIds[i] = validationId;
  state.records.push({
    validationId,
    nodeId: node.nodeId,
    nodeIdBytes: node.nodeIdBytes,
    publicKey: node.publicKey,
    weight: keys.initialWeights[i]!,
    weightHistory: [{ height, weight: keys.initialWeights[i]! }],
    minNonce: 0n,
    balance: REGISTRATION_BALANCE - 23_456_789n,
    startTime: timeAtHeight(height),
    remainingBalanceOwner: owner,
    deactivationOwner: owner,
    joinedBy: 'registration',
  });
}

/**
 * The validators between the conversion and the featured registration, joined in one block;
 * their transactions are not kept (nobody holds their IDs), only their effect on the state.
 */
export function registerInBulk(ids: NetworkIdentities, keys: ValidatorKeys, conversion: Conversion): void {
  for (let i = conversion.activeCount; i < keys.nodes.length - 1; i++) {
    const payload = registerPayload(ids, keys, i, HEIGHTS.bulkRegistration);
    addRegistered(conversion.state, ids, keys, i, HEIGHTS.bulkRegistration, validationIdOfRegistration(encodeL1Message(payload)));
  }
}

/** The last validator joins by a RegisterL1ValidatorTx signed by the L1 as it was one block before. */
export function registerFeatured(ids: NetworkIdentities, keys: ValidatorKeys, state: L1ValidatorState, sign: ManagerSigner): FeaturedRegistration {
  const featured = keys.nodes.length - 1;
  const payload = registerPayload(ids, keys, featured, HEIGHTS.registration);
  const payloadBytes = encodeL1Message(payload);
  const signedMessage = sign(payloadBytes, HEIGHTS.registration - 1);
  const tx = signPChainTx(
    {
      kind: 'RegisterL1ValidatorTx',
      base: baseTx(ids, 'register', 1_000_000n + REGISTRATION_BALANCE),
      balance: REGISTRATION_BALANCE,
      proofOfPossession: proofOfPossession(keys.nodes[featured]!.secretKey),
      message: signedMessage,
    },
    ids.owner.secretKey,
  );
  const validationId = validationIdOfRegistration(payloadBytes);
  addRegistered(state, ids, keys, featured, HEIGHTS.registration, validationId);
  return { tx, validationId, payload, signedMessage };
}
