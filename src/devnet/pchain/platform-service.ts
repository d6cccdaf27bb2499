// The `platform.*` methods of the simulated P-Chain node: result shapes, field names, number
// encodings and error messages as avalanchego's vms/platformvm/service.go produces them
// (protocol.md sections 5 and 6). uint64 results are decimal strings (json.Uint64) except inside
// getTx's JSON encoding and the legacy getValidatorsAt shape, where Go writes plain numbers.
import type { BlsBackend } from '../../bls/types.js';
import { canonicalSet, type CanonicalSet } from '../../validators/canonical-set.js';
import { PublicKeyCache } from '../../validators/key-cache.js';
import { cb58Decode, cb58Encode, P_CHAIN_ID, PRIMARY_NETWORK_ID } from '../../warp/cb58.js';
import { bytesEqual, bytesTo0xHex, bytesToHex } from '../../warp/hex.js';
import { timeAtHeight } from '../genesis/history.js';
import type { DevnetGenesis, L1ValidatorRecord, PrimaryValidator } from '../genesis/types.js';
import { formatPChainAddress } from './address.js';
import type { HeightArg, JsonRpcArgs } from './json-rpc-args.js';
import { JsonRpcError } from './json-rpc-errors.js';
import type { JsonRpcService } from './json-rpc-server.js';
import type { PChainState } from './state.js';
import { hexWithChecksum, signedTxJson } from './tx.js';

interface PlatformServiceOptions {
  /** Answer getValidatorsAt as older nodes did: `{validators: {"NodeID-…": weight}}`. */
  legacyValidatorsAtShape?: boolean;
  /** For getAllValidatorsAt's canonical ordering. */
  bls: BlsBackend;
}

const EMPTY_ID = cb58Encode(new Uint8Array(32));
const NOT_FOUND = 'not found';
/** Canonical sets kept for getAllValidatorsAt (the history has only a handful of distinct sets). */
const MAX_CACHED_SETS = 64;

/** The chains this network knows, by every name avalanchego accepts for them. */
export function knownChains(genesis: DevnetGenesis): Map<string, { id: Uint8Array; subnetId: Uint8Array; alias?: string }> {
  const chains = new Map<string, { id: Uint8Array; subnetId: Uint8Array; alias?: string }>();
  const add = (id: Uint8Array, subnetId: Uint8Array, aliases: string[]): void => {
    const entry = { id, subnetId, ...(aliases[0] ? { alias: aliases[0] } : {}) };
    chains.set(cb58Encode(id), entry);
    for (const a of aliases) chains.set(a, entry);
  };
  add(P_CHAIN_ID, PRIMARY_NETWORK_ID, ['P', 'platform']);
  add(genesis.xChainId, PRIMARY_NETWORK_ID, ['X', 'avm']);
  add(genesis.cChainId, PRIMARY_NETWORK_ID, ['C', 'evm']);
  add(genesis.blockchainId, genesis.subnetId, []);
  return chains;
}

function l1ValidatorJson(record: L1ValidatorRecord, networkId: number): Record<string, unknown> {
  return {
    nodeID: record.nodeId,
    weight: record.weight.toString(),
    startTime: record.startTime.toString(),
    validationID: cb58Encode(record.validationId),
    publicKey: bytesTo0xHex(record.publicKey),
    remainingBalanceOwner: ownersJson(record.remainingBalanceOwner.threshold, record.remainingBalanceOwner.addresses, networkId),
    deactivationOwner: ownersJson(record.deactivationOwner.threshold, record.deactivationOwner.addresses, networkId),
    minNonce: record.minNonce.toString(),
    balance: record.balance.toString(),
  };
}

function ownersJson(threshold: number, addresses: Uint8Array[], networkId: number): Record<string, unknown> {
  return { locktime: '0', threshold: String(threshold), addresses: addresses.map((a) => formatPChainAddress(a, networkId)) };
}

function primaryValidatorJson(v: PrimaryValidator, networkId: number, withDelegators: boolean): Record<string, unknown> {
  return {
    txID: cb58Encode(v.txId),
    startTime: v.startTime.toString(),
    endTime: v.endTime.toString(),
    weight: v.weight.toString(),
    nodeID: v.nodeId,
    validationRewardOwner: ownersJson(1, [v.rewardOwner], networkId),
    delegationRewardOwner: ownersJson(1, [v.rewardOwner], networkId),
    potentialReward: v.potentialReward.toString(),
    accruedDelegateeReward: '0',
    delegationFee: (v.delegationShares / 10_000).toFixed(4),
    uptime: '100.0000',
    connected: true,
    signer: { publicKey: bytesTo0xHex(v.publicKey), proofOfPossession: bytesTo0xHex(v.proofOfPossession) },
    delegatorCount: '0',
    delegatorWeight: '0',
    ...(withDelegators ? { delegators: [] } : {}),
  };
}

/** Go marshals maps with their keys sorted. */
function sortedObject<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function platformService(state: PChainState, options: PlatformServiceOptions): JsonRpcService {
  const { genesis } = state;
  const { networkId } = genesis;
  const chains = knownChains(genesis);
  const keyCache = new PublicKeyCache(options.bls, genesis.validators.length + genesis.primaryValidators.length + 16);
  const canonicalCache = new Map<string, CanonicalSet>();

  /** A height argument as a number of the history, or the error avalanchego gives above the tip. */
  const queryHeight = (arg: HeightArg | undefined, unfinalized: (h: bigint) => string): number => {
    const height = arg === 'proposed' ? BigInt(genesis.proposedHeight) : (arg ?? 0n);
    if (height > BigInt(genesis.currentHeight)) {
      throw new JsonRpcError(unfinalized(height));
    }
    return Number(height);
  };
  const unfinalizedMessage = (subnet: string | undefined, height: bigint): string =>
    `failed to fetch validator set at unfinalized height${subnet === undefined ? '' : ` with SubnetID = ${subnet}`}: ` +
    `current P-chain height (${genesis.currentHeight}) < requested P-Chain height (${height})`;

  const canonicalAt = (subnetId: Uint8Array, height: number): CanonicalSet => {
    const key = `${bytesToHex(subnetId)}@${height}`;
    let set = canonicalCache.get(key);
    if (!set) {
      set = canonicalSet(state.validatorsAt(subnetId, height), options.bls, keyCache);
      if (canonicalCache.size >= MAX_CACHED_SETS) canonicalCache.clear();
      canonicalCache.set(key, set);
    }
    return set;
  };

  const txIdArg = (args: JsonRpcArgs): Uint8Array => args.id('txID') ?? new Uint8Array(32);

  /**
   * Whether `id` names a transaction on this chain: the committed ones, the subnet's creation
   * (a subnet ID is its CreateSubnetTx's ID) and the chains' creations. avalanchego looks IDs up
   * as transactions, so a transaction of the wrong kind gets its own error, not "not found".
   */
  const isTransaction = (id: Uint8Array): boolean =>
    state.transaction(id) !== undefined ||
    bytesEqual(id, genesis.subnetId) ||
    [...chains.values()].some((c) => bytesEqual(c.id, id) && !bytesEqual(id, P_CHAIN_ID));

  return {
    name: 'platform',
    methods: {
      getHeight: () => ({ height: String(genesis.currentHeight) }),

      getProposedHeight: () => ({ height: String(genesis.proposedHeight) }),

      // The time of the last accepted block, as Go marshals a time.Time (RFC 3339, no zero fraction).
      // Signers compare a registration's expiry with it (pchain-policy.ts).
      getTimestamp: () => ({ timestamp: new Date(Number(timeAtHeight(genesis.currentHeight)) * 1000).toISOString().replace('.000Z', 'Z') }),

      getValidatorsAt: (args) => {
        const subnetId = args.id('subnetID') ?? PRIMARY_NETWORK_ID;
        const height = queryHeight(args.height('height'), (h) => `failed to get validator set at ${h}: ${unfinalizedMessage(cb58Encode(subnetId), h)}`);
        const entries = state.validatorsAt(subnetId, height);
        if (options.legacyValidatorsAtShape) {
          // Older nodes: map[ids.NodeID]uint64, the weights as JSON numbers.
          return { validators: sortedObject(entries.map((e) => [e.nodeId, e.weight])) };
        }
        return sortedObject(
          entries.map((e) => [e.nodeId, { publicKey: e.publicKey ? bytesTo0xHex(e.publicKey) : null, weight: e.weight.toString() }]),
        );
      },

      getAllValidatorsAt: (args) => {
        const height = queryHeight(args.height('height'), (h) => `failed to get validator sets at ${h}: ${unfinalizedMessage(undefined, h)}`);
        const sets: [string, unknown][] = [];
        for (const subnetId of [PRIMARY_NETWORK_ID, genesis.subnetId]) {
          const set = canonicalAt(subnetId, height);
          if (set.validators.length === 0) continue;
          sets.push([
            cb58Encode(subnetId),
            {
              validators: set.validators.map((v) => ({ publicKey: `0x${v.publicKeyHex}`, weight: v.weight.toString(), nodeIDs: [...v.nodeIds].sort() })),
              totalWeight: set.totalWeight.toString(),
            },
          ]);
        }
        return { validatorSets: sortedObject(sets) };
      },

      getCurrentValidators: (args) => {
        const subnetId = args.id('subnetID') ?? PRIMARY_NETWORK_ID;
        const filter = args.nodeIds('nodeIDs');
        const wanted = filter && filter.length > 0 ? new Set(filter.map((id) => bytesToHex(id))) : undefined;
        const keep = (nodeIdBytes: Uint8Array): boolean => !wanted || wanted.has(bytesToHex(nodeIdBytes));
        if (state.isL1(subnetId)) {
          return { validators: genesis.l1Validators.filter((r) => keep(r.nodeIdBytes)).map((r) => l1ValidatorJson(r, networkId)) };
        }
        if (state.isPrimaryNetwork(subnetId)) {
          const oneNode = wanted?.size === 1;
          return {
            validators: genesis.primaryValidators.filter((v) => keep(v.nodeIdBytes)).map((v) => primaryValidatorJson(v, networkId, oneNode)),
          };
        }
        return { validators: [] };
      },

      getL1Validator: (args) => {
        const validationId = args.id('validationID') ?? new Uint8Array(32);
        const record = state.l1Validator(validationId);
        if (!record) throw new JsonRpcError(`fetching L1 validator "${cb58Encode(validationId)}" failed: ${NOT_FOUND}`);
        return { ...l1ValidatorJson(record, networkId), subnetID: cb58Encode(genesis.subnetId), height: String(genesis.currentHeight) };
      },

      validatedBy: (args) => {
        const blockchainId = args.id('blockchainID') ?? P_CHAIN_ID;
        const chain = chains.get(cb58Encode(blockchainId));
        if (chain) return { subnetID: cb58Encode(chain.subnetId) };
        // manager.go GetSubnetID: the ID must be a CreateChainTx's.
        if (isTransaction(blockchainId)) throw new JsonRpcError(`"${cb58Encode(blockchainId)}" is not a blockchain`);
        throw new JsonRpcError(`problem retrieving blockchain "${cb58Encode(blockchainId)}": ${NOT_FOUND}`);
      },

      getSubnet: (args) => {
        const subnetId = args.id('subnetID') ?? PRIMARY_NETWORK_ID;
        if (state.isPrimaryNetwork(subnetId)) throw new JsonRpcError("the primary network isn't a subnet");
        if (!state.isL1(subnetId)) {
          // state.go GetSubnetOwner: the ID must be a CreateSubnetTx's.
          throw new JsonRpcError(isTransaction(subnetId) ? `"${cb58Encode(subnetId)}" is not a subnet` : NOT_FOUND);
        }
        return {
          isPermissioned: false,
          controlKeys: [formatPChainAddress(genesis.owner.shortId, networkId)],
          threshold: '1',
          locktime: '0',
          subnetTransformationTxID: EMPTY_ID,
          conversionID: cb58Encode(genesis.conversion.conversionId),
          managerChainID: cb58Encode(genesis.blockchainId),
          managerAddress: bytesTo0xHex(genesis.managerAddress),
        };
      },

      getBlockchainStatus: (args) => {
        const name = args.string('blockchainID') ?? '';
        if (name === '') throw new JsonRpcError("argument 'blockchainID' not given");
        const chain = chains.get(name);
        if (chain) {
          // avalanchego: Validating if this node validates the chain's subnet. The P-Chain has no
          // CreateChainTx, so its own status reads Syncing, as on a real node.
          return { status: bytesEqual(chain.id, P_CHAIN_ID) ? 'Syncing' : 'Validating' };
        }
        try {
          if (cb58Decode(name, 'blockchainID').length !== 32) throw new Error('expected 32 bytes');
        } catch (err) {
          throw new JsonRpcError(`problem parsing blockchainID "${name}": ${err instanceof Error ? err.message : String(err)}`);
        }
        // A well-formed ID this node has never seen (nor prefers in a pending block).
        return { status: 'Unknown' };
      },

      getTx: (args) => {
        const txId = txIdArg(args);
        const encoding = args.encoding('encoding');
        const tx = state.transaction(txId);
        if (!tx || tx.status !== 'Committed') throw new JsonRpcError(`couldn't get tx: ${NOT_FOUND}`);
        if (encoding === 'json') return { tx: signedTxJson(tx.tx), encoding };
        return { tx: encoding === 'hexnc' ? bytesTo0xHex(tx.tx.bytes) : hexWithChecksum(tx.tx.bytes), encoding };
      },

      getTxStatus: (args) => {
        const tx = state.transaction(txIdArg(args));
        return { status: tx ? tx.status : 'Unknown' };
      },
    },
  };
}
