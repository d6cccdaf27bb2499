// The sixth stage of a genesis: the Primary Network's validator set, the first validators of the
// L1 with the same keys, each staked by an AddPermissionlessValidatorTx the node reports.
import { GENESIS_TIME } from './history.js';
import { NANO_AVAX } from './identities.js';
import { derive, deriveU64 } from './keys.js';
import { proofOfPossession } from './pop.js';
import type { PrimaryValidator } from './types.js';
import type { KeyedNode } from './validator-keys.js';

/** Validators of the Primary Network set (the first ones of the L1, same keys). */
const MAX_PRIMARY_VALIDATORS = 10;

export function primaryNetwork(seed: string, nodes: readonly KeyedNode[], rewardOwner: Uint8Array): PrimaryValidator[] {
  return nodes.slice(0, Math.min(nodes.length, MAX_PRIMARY_VALIDATORS)).map((node, i) => {
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
      rewardOwner,
    };
  });
}
