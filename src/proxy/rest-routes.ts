// The Data API (seed 000 sections 4.3-4.15) and Metrics API (seed 001 sections 4.1-4.2) read
// endpoints, each with the checks its seed states. Query parameters a route does not name are
// forwarded unchanged (a transparent gateway; the upstream decides what they mean), and a route
// only rejects what its seed rules out.
import type { UpstreamName } from './errors.js';
import {
  NETWORKS,
  PRIMARY_NETWORK_SUBNET_ID,
  SORT_ORDERS,
  isChainAddress,
  isCb58Id,
  isDecimalChainId,
  isEvmAddress,
  isNetwork,
  isNodeId,
  isNodeIdPart,
  type Network,
  type ParamReader,
} from './param-rules.js';
import { PathPattern } from './path-pattern.js';

/** Which error body a route answers with. */
export type ErrorShape = 'dataApi' | 'metricsApi';

export interface RestRoute {
  pattern: PathPattern;
  upstream: UpstreamName;
  shape: ErrorShape;
  /** Successful answers may be reused for cacheTtlMs: data that does not change from one request to the next. */
  cacheable: boolean;
  /** Node-specific (the health API): refused in public mode. */
  nodeSpecific?: boolean;
  check(params: Record<string, string>, r: ParamReader): void;
}

const CURRENCIES = ['usd', 'eur', 'aud', 'cad', 'chf', 'clp', 'cny', 'czk', 'dkk', 'gbp', 'hkd', 'huf', 'jpy', 'nzd'] as const;
const VALIDATOR_SORT_BY = ['blockIndex', 'delegationCapacity', 'timeRemaining', 'delegationFee', 'uptimePerformance'] as const;
const VALIDATION_STATUSES = ['completed', 'active', 'pending', 'removed'] as const;
const DELEGATION_STATUSES = ['completed', 'active', 'pending'] as const;
const TRANSACTION_STATUSES = ['failed', 'success'] as const;
const CHAIN_FEATURES = ['nftIndexing', 'webhooks', 'teleporter'] as const;
/** Section 4.5: the primary-network chains by ID (P, X mainnet, X fuji, C mainnet, C fuji) and alias. */
const BALANCE_BLOCKCHAIN_IDS = [
  '11111111111111111111111111111111LpoYY',
  '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM',
  '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm',
  '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5',
  'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp',
  'p-chain',
  'x-chain',
  'c-chain',
] as const;
const MAX_DELEGATION_CAPACITY = 720_000_000_000_000_000n;
const MAX_TIME_REMAINING = 2_147_483_647;
const UINT64_MAX = (1n << 64n) - 1n;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function network(p: Record<string, string>, r: ParamReader): Network | undefined {
  return r.path('network', p.network, isNetwork, `be one of: ${NETWORKS.join(', ')}`) as Network | undefined;
}

/** Data API `{chainId}`: a supported EVM chain ID or a blockchain ID (seed 000 section 4). */
function chainId(p: Record<string, string>, r: ParamReader): void {
  r.path('chainId', p.chainId, (v) => isDecimalChainId(v) || isCb58Id(v), 'be an EVM chain id in decimal or a cb58 blockchain id');
}

function evmChainId(p: Record<string, string>, r: ParamReader): void {
  r.path('chainId', p.chainId, isDecimalChainId, 'be an EVM chain id in decimal');
}

function pathAddress(p: Record<string, string>, r: ParamReader): void {
  r.path('address', p.address, isEvmAddress, 'be an EVM address (0x followed by 40 hex digits)');
}

function blockRange(r: ParamReader): void {
  r.integer('startBlock', 0, MAX_SAFE);
  r.integer('endBlock', 0, MAX_SAFE);
}

function chainAddresses(name: string, net: Network | undefined, r: ParamReader): string[] | undefined {
  // Without a valid network the address prefix is unknown; the network violation is reported instead.
  if (net === undefined) return r.one(name) === undefined ? undefined : [];
  const hrp = net === 'mainnet' ? 'avax' : 'fuji';
  return r.list(name, (a) => isChainAddress(a, net), `${net} X-Chain or P-Chain addresses (optionally P- or X-, then ${hrp}1…)`);
}

function nodeIds(r: ParamReader): string[] | undefined {
  return r.list('nodeIds', isNodeId, 'node ids (NodeID-…)');
}

function route(
  upstream: 'dataApi' | 'metricsApi',
  pattern: string,
  cacheable: boolean,
  check: (p: Record<string, string>, r: ParamReader) => void,
): RestRoute {
  return { pattern: new PathPattern(pattern), upstream, shape: upstream, cacheable, check };
}

export const DATA_API_ROUTES: readonly RestRoute[] = [
  // 4.3: a contract's deployment never changes.
  route('dataApi', '/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment', true, (p, r) => {
    chainId(p, r);
    pathAddress(p, r);
    r.oneOf('currency', CURRENCIES);
  }),
  // 4.4
  route('dataApi', '/v1/networks/{network}/validators', false, (p, r) => {
    const net = network(p, r);
    r.paging(100);
    r.list('nodeIds', isNodeIdPart, 'node ids or parts of node ids');
    const sortBy = r.oneOf('sortBy', VALIDATOR_SORT_BY);
    r.oneOf('sortOrder', SORT_ORDERS);
    r.oneOf('validationStatus', VALIDATION_STATUSES);
    r.bigInteger('minDelegationCapacity', 0n, MAX_DELEGATION_CAPACITY);
    r.bigInteger('maxDelegationCapacity', 0n, MAX_DELEGATION_CAPACITY);
    r.decimal('minTimeRemaining', 0, MAX_TIME_REMAINING);
    r.decimal('maxTimeRemaining', 0, MAX_TIME_REMAINING);
    r.decimal('minFeePercentage', 2, 100);
    r.decimal('maxFeePercentage', 2, 100);
    r.decimal('minUptimePerformance', 0, 100);
    r.decimal('maxUptimePerformance', 0, 100);
    const subnetId = r.one('subnetId');
    if (sortBy === 'delegationFee' && net !== undefined && (net !== 'mainnet' || subnetId !== PRIMARY_NETWORK_SUBNET_ID)) {
      r.fail(`sortBy delegationFee applies only to mainnet validators and needs subnetId ${PRIMARY_NETWORK_SUBNET_ID}`);
    }
  }),
  // 4.5
  route('dataApi', '/v1/networks/{network}/blockchains/{blockchainId}/balances', false, (p, r) => {
    const net = network(p, r);
    r.path('blockchainId', p.blockchainId, (v) => (BALANCE_BLOCKCHAIN_IDS as readonly string[]).includes(v), `be one of: ${BALANCE_BLOCKCHAIN_IDS.join(', ')}`);
    r.integer('blockTimestamp', 0, MAX_SAFE);
    chainAddresses('addresses', net, r);
  }),
  // 4.6
  route('dataApi', '/v1/chains/{chainId}/tokens/{address}/transfers', false, (p, r) => {
    chainId(p, r);
    pathAddress(p, r);
    blockRange(r);
    r.paging(100);
  }),
  // 4.7
  route('dataApi', '/v1/chains/{chainId}/addresses/{address}/transactions:listInternals', false, (p, r) => {
    chainId(p, r);
    pathAddress(p, r);
    blockRange(r);
    r.paging(100);
  }),
  // 4.8
  route('dataApi', '/v1/chains/{chainId}/addresses/{address}/transactions:listNative', false, (p, r) => {
    chainId(p, r);
    pathAddress(p, r);
    blockRange(r);
    r.paging(100);
  }),
  // 4.9
  route('dataApi', '/v1/chains/{chainId}/addresses/{address}/balances:listErc1155', false, (p, r) => {
    chainId(p, r);
    pathAddress(p, r);
    r.bigInteger('blockNumber', 0n, UINT64_MAX);
    const contract = r.one('contractAddress');
    if (contract !== undefined && !isEvmAddress(contract)) r.fail('contractAddress must be an EVM address (0x followed by 40 hex digits)');
    r.paging(500);
  }),
  // Referenced in seed 000 section 4 without a shape: the path values are checked, the query is the upstream's.
  route('dataApi', '/v1/chains/{chainId}/addresses/{address}/balances:getNative', false, (p, r) => {
    chainId(p, r);
    pathAddress(p, r);
  }),
  // 4.10
  route('dataApi', '/v1/chains/{chainId}/transactions', false, (p, r) => {
    chainId(p, r);
    r.oneOf('status', TRANSACTION_STATUSES);
    r.paging(100);
  }),
  // 4.11
  route('dataApi', '/v1/networks/{network}/rewards:listPending', false, (p, r) => {
    const net = network(p, r);
    if (!r.present('addresses') && !r.present('nodeIds')) r.fail('addresses or nodeIds is required');
    chainAddresses('addresses', net, r);
    nodeIds(r);
    r.oneOf('sortOrder', SORT_ORDERS);
    r.paging(100);
  }),
  // 4.12
  route('dataApi', '/v1/networks/{network}/validators/{nodeId}', false, (p, r) => {
    network(p, r);
    r.path('nodeId', p.nodeId, isNodeId, 'be a node id (NodeID- followed by a cb58 20-byte id)');
    r.oneOf('validationStatus', VALIDATION_STATUSES);
    r.oneOf('sortOrder', SORT_ORDERS);
    r.paging(100);
  }),
  // 4.13
  route('dataApi', '/v1/networks/{network}/delegators', false, (p, r) => {
    const net = network(p, r);
    chainAddresses('rewardAddresses', net, r);
    nodeIds(r);
    r.oneOf('delegationStatus', DELEGATION_STATUSES);
    r.oneOf('sortOrder', SORT_ORDERS);
    r.paging(100);
  }),
  // 4.14: the chain list changes rarely.
  route('dataApi', '/v1/chains', true, (_p, r) => {
    r.oneOf('network', NETWORKS);
    r.oneOf('feature', CHAIN_FEATURES);
  }),
  // 4.15: token details (metadata is re-indexed rarely).
  route('dataApi', '/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}', true, (p, r) => {
    chainId(p, r);
    pathAddress(p, r);
  }),
];

export const METRICS_API_ROUTES: readonly RestRoute[] = [
  // 4.1: daily averages.
  route('metricsApi', '/v1/avg_tps/{chainId}', true, (p, r) => {
    chainId(p, r);
    r.one('pageToken');
  }),
  // 4.2
  route('metricsApi', '/v2/chains/{chainId}/contracts/{address}/balances', true, (p, r) => {
    evmChainId(p, r);
    pathAddress(p, r);
    if (!r.present('threshold')) r.fail('threshold is required');
    else {
      const threshold = r.one('threshold');
      if (threshold !== undefined && !/^[0-9]+(\.[0-9]+)?$/.test(threshold)) r.fail('threshold must be a non-negative decimal number');
    }
    r.integer('startTimestamp', 0, MAX_SAFE);
    r.integer('endTimestamp', 0, MAX_SAFE);
    r.paging(5000);
  }),
];
