// The JSON-RPC methods each node endpoint serves through (seed 002 section 4), with their
// deprecation marks (section 9) and the node-specific ones a public server refuses. A method not
// listed for an endpoint is answered locally as the node would answer an unknown method.

export interface MethodInfo {
  /** avalanchego (or subnet-evm) version that deprecated the method; forwarded with a Deprecation header. */
  deprecatedSince?: string;
  /** Reveals the node itself; refused in public mode. */
  nodeSpecific?: boolean;
  /** geth-style endpoints: most positional arguments the method takes (more is -32602). */
  maxArgs?: number;
}

export type MethodTable = Readonly<Record<string, MethodInfo>>;

/** Section 4.1, POST /ext/bc/X and other instances of the asset-chain VM. */
export const AVM_METHODS: MethodTable = {
  'avm.getAllBalances': { deprecatedSince: 'v1.9.12' },
  'avm.getAssetDescription': {},
  'avm.getBalance': { deprecatedSince: 'v1.9.12' },
  'avm.getBlock': {},
  'avm.getBlockByHeight': {},
  'avm.getHeight': {},
  'avm.getTx': {},
  'avm.getTxFee': {},
  'avm.getTxStatus': { deprecatedSince: 'v1.10.0' },
  'avm.getUTXOs': {},
};

/**
 * Section 4.2, POST /ext/bc/P, plus the read methods of protocol.md section 5 that Warp tooling
 * relies on (validator sets by height, signing subnets, L1 transactions): a relayer pointed at
 * warpgate's /ext/bc/P must find them.
 */
export const PLATFORM_METHODS: MethodTable = {
  'platform.getHeight': {},
  'platform.getProposedHeight': {},
  'platform.getValidatorsAt': {},
  'platform.getAllValidatorsAt': {},
  'platform.validatedBy': {},
  'platform.getSubnet': {},
  'platform.getTx': {},
  'platform.getTxStatus': {},
  'platform.getL1Validator': {},
  'platform.getBalance': { deprecatedSince: 'v1.9.12' },
  'platform.getBlock': {},
  'platform.getBlockByHeight': {},
  'platform.getBlockchains': { deprecatedSince: 'v1.9.12' },
  'platform.getBlockchainStatus': {},
  'platform.getCurrentSupply': {},
  'platform.getCurrentValidators': {},
};

/** Section 4.3, POST /ext/info. */
export const INFO_METHODS: MethodTable = {
  'info.acps': {},
  'info.isBootstrapped': {},
  'info.getBlockchainID': {},
  'info.getNetworkID': {},
  'info.getNetworkName': {},
  'info.getNodeID': { nodeSpecific: true },
  'info.getNodeIP': { nodeSpecific: true },
  'info.getNodeVersion': {},
  'info.getTxFee': { deprecatedSince: 'v1.12.2' },
  'info.getVMs': { nodeSpecific: true },
  'info.peers': {},
  'info.uptime': {},
  'info.upgrades': {},
};

/** Section 4.4, POST /ext/health: the whole health API is node-specific. */
export const HEALTH_METHODS: MethodTable = {
  'health.health': { nodeSpecific: true },
  'health.readiness': { nodeSpecific: true },
  'health.liveness': { nodeSpecific: true },
};

/** Section 4.6, POST /ext/bc/{blockchainID}/validators. */
export const VALIDATORS_METHODS: MethodTable = {
  'validators.getCurrentValidators': {},
};

/**
 * Standard Ethereum read methods (the execution-apis set, net_ and web3_, and the fee helpers
 * Avalanche EVMs add) that section 4.5 says EVM chains also support. Left out on purpose:
 * methods that change state or need node-held accounts (eth_sendRawTransaction,
 * eth_sendTransaction, eth_sign*), per-node filters and subscriptions (eth_newFilter and
 * friends), and the admin_, debug_, personal_ and txpool_ namespaces.
 */
const STANDARD_EVM_READS: readonly string[] = [
  'eth_accounts',
  'eth_baseFee',
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_createAccessList',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getHeaderByHash',
  'eth_getHeaderByNumber',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_maxPriorityFeePerGas',
  'eth_suggestPriceOptions',
  'eth_syncing',
  'net_listening',
  'net_peerCount',
  'net_version',
  'web3_clientVersion',
  'web3_sha3',
];

/** The Warp API of EVM chains with warp-api-enabled (protocol.md section 7): reads only. */
const WARP_READS: readonly string[] = [
  'warp_getMessage',
  'warp_getMessageSignature',
  'warp_getBlockSignature',
  'warp_getMessageAggregateSignature',
  'warp_getBlockAggregateSignature',
];

/** Section 4.5, POST /ext/bc/{blockchainID}/rpc. */
export const EVM_METHODS: MethodTable = {
  ...Object.fromEntries([...STANDARD_EVM_READS, ...WARP_READS].map((m) => [m, {}])),
  eth_feeConfig: { maxArgs: 1 },
  eth_getChainConfig: { maxArgs: 0 },
  eth_getActivePrecompilesAt: { maxArgs: 1, deprecatedSince: 'subnet-evm (use eth_getActiveRulesAt)' },
  eth_getActiveRulesAt: { maxArgs: 1 },
};
