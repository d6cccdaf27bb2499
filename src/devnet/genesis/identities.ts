// The first stage of a genesis: the network's IDs (the L1's subnet, its EVM chain and validator
// manager, the X- and C-Chains and AVAX itself) and the secp256k1 key that owns the devnet's
// UTXOs and the subnet. Every devnet transaction pays from that key the same way (baseTx).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { cb58Decode, P_CHAIN_ID } from '../../warp/cb58.js';
import type { PChainOwner } from '../../warp/l1-messages.js';
import { shortIdOfPublicKey } from '../pchain/address.js';
import type { BaseTxFields } from '../pchain/tx.js';
import { derive, deriveSecp256k1SecretKey } from './keys.js';
import type { DevnetGenesis } from './types.js';

export const NANO_AVAX = 1_000_000_000n;

/** Known IDs of real networks, so a devnet on network 1, 5 or 12345 prints familiar ones. */
const WELL_KNOWN_IDS: ReadonlyMap<number, { avaxAssetId: string; xChainId: string; cChainId: string }> = new Map([
  [1, { avaxAssetId: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z', xChainId: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM', cChainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5' }],
  [5, { avaxAssetId: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK', xChainId: '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm', cChainId: 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp' }],
  [12345, { avaxAssetId: '2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe', xChainId: '2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed', cChainId: '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC' }],
]);

/** The network's IDs as the genesis keeps them, and the owner's key with its P-Chain owner form. */
export type NetworkIdentities = Pick<DevnetGenesis, 'seed' | 'networkId' | 'subnetId' | 'blockchainId' | 'managerAddress' | 'xChainId' | 'cChainId' | 'avaxAssetId'> & {
  /** The owner of the UTXOs and the subnet, and of every L1 validator's balance. */
  owner: { secretKey: Uint8Array; shortId: Uint8Array; pchainOwner: PChainOwner };
};

export function networkIdentities(seed: string, networkId: number): NetworkIdentities {
  const known = WELL_KNOWN_IDS.get(networkId);
  const secretKey = deriveSecp256k1SecretKey(seed, 'owner');
  const shortId = shortIdOfPublicKey(secp256k1.getPublicKey(secretKey, true));
  return {
    seed,
    networkId,
    subnetId: derive(seed, 'subnet'),
    blockchainId: derive(seed, 'l1-chain'),
    managerAddress: derive(seed, 'validator-manager').slice(0, 20),
    xChainId: known ? cb58Decode(known.xChainId) : derive(seed, 'x-chain'),
    cChainId: known ? cb58Decode(known.cChainId) : derive(seed, 'c-chain'),
    avaxAssetId: known ? cb58Decode(known.avaxAssetId) : derive(seed, 'avax'),
    owner: { secretKey, shortId, pchainOwner: { threshold: 1, addresses: [shortId] } },
  };
}

/** One UTXO in, change out, as every devnet transaction pays: `spent` is fee plus balances. */
export function baseTx(ids: NetworkIdentities, label: string, spent: bigint): BaseTxFields {
  const change = 1_000n * NANO_AVAX;
  return {
    networkId: ids.networkId,
    blockchainId: P_CHAIN_ID,
    outputs: [{ assetId: ids.avaxAssetId, amount: change, owners: { locktime: 0n, threshold: 1, addresses: [ids.owner.shortId] } }],
    inputs: [{ txId: derive(ids.seed, 'utxo', label), outputIndex: 0, assetId: ids.avaxAssetId, amount: change + spent, signatureIndices: [0] }],
    memo: new Uint8Array(0),
  };
}
