// Every configuration key, its type, default and limits, in one table. The loader validates a
// config file and WARPGATE_* environment overrides against it; config.example.json and the
// README's table are checked against it by a test, so the three cannot drift apart.

export type KeyType =
  | { kind: 'int'; min: number; max: number }
  | { kind: 'optionalInt'; min: number; max: number }
  | { kind: 'bool' }
  | { kind: 'string'; enum?: readonly string[] }
  | { kind: 'url'; protocols: readonly string[] }
  | { kind: 'optionalUrl'; protocols: readonly string[] }
  | { kind: 'optionalSecret' }
  | { kind: 'stringList' }
  | { kind: 'idList' }
  | { kind: 'blsKeyList' }
  | { kind: 'peerList' };

export interface KeySpec {
  type: KeyType;
  default: unknown;
  doc: string;
}

const ms = (min: number, max: number): KeyType => ({ kind: 'int', min, max });

export const SCHEMA = {
  port: { type: ms(0, 65535), default: 8080, doc: 'HTTP listen port' },
  host: { type: { kind: 'string' }, default: '0.0.0.0', doc: 'HTTP listen address' },
  logLevel: { type: { kind: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }, default: 'info', doc: 'pino log level' },
  'upstreams.node': { type: { kind: 'optionalUrl', protocols: ['http:', 'https:'] }, default: null, doc: 'avalanchego node base URL; the P-Chain is at /ext/bc/P' },
  'upstreams.dataApi': { type: { kind: 'optionalUrl', protocols: ['http:', 'https:'] }, default: null, doc: 'Data API base URL for the forwarded read endpoints' },
  'upstreams.metricsApi': { type: { kind: 'optionalUrl', protocols: ['http:', 'https:'] }, default: null, doc: 'Metrics API base URL' },
  'upstreams.apiKey': { type: { kind: 'optionalSecret' }, default: null, doc: 'sent upstream as x-glacier-api-key (never logged)' },
  localNetworkId: { type: { kind: 'optionalInt', min: 1, max: 4294967295 }, default: null, doc: 'a local network ID the aggregation endpoints accept under any {network} path value (the devnet sets it)' },
  peers: { type: { kind: 'peerList' }, default: [], doc: 'signer peers to dial: [{"url": "ws://host:port"}]' },
  peerPath: { type: { kind: 'string' }, default: '/v1/peers', doc: 'path where signer peers may dial in' },
  'bls.backend': { type: { kind: 'string', enum: ['blst', 'noble'] }, default: 'blst', doc: 'BLS backend (noble is the pure-JS fallback)' },
  'workers.threads': { type: ms(1, 64), default: 2, doc: 'BLS worker threads' },
  'workers.maxQueue': { type: ms(16, 1_000_000), default: 4096, doc: 'BLS tasks waiting at most' },
  'aggregation.deadlineMs': { type: ms(100, 60_000), default: 5000, doc: 'longest an aggregation request may take, from its arrival to its answer, P-Chain reads included; past it 504' },
  'aggregation.requestTimeoutMs': { type: ms(50, 60_000), default: 2000, doc: 'longest one peer request may take' },
  'aggregation.fanOutExtraPercent': { type: ms(0, 100), default: 100, doc: 'weight asked beyond what is missing, in % of the total: 100 asks every connected validator at once (lowest latency); lower values spare validators and ask more only as answers fail or are slow' },
  'aggregation.hedgeMs': { type: ms(10, 60_000), default: 250, doc: 'a validator silent this long counts as slow and the next ones are asked' },
  'aggregation.maxConcurrent': { type: ms(1, 10_000), default: 64, doc: 'aggregations at once; past it 503 with Retry-After' },
  'validatorSets.currentTtlMs': { type: ms(0, 600_000), default: 2000, doc: 'how long the current validator set is reused' },
  'validatorSets.currentMaxStaleMs': { type: ms(0, 600_000), default: 30_000, doc: 'after the TTL, how long the current set still answers at once while it is refreshed in the background' },
  'validatorSets.maxEntries': { type: ms(1, 10_000), default: 64, doc: 'validator sets kept' },
  'validatorSets.nodeTimeoutMs': { type: ms(100, 120_000), default: 5000, doc: 'timeout of one P-Chain call' },
  'validatorSets.maxLookback': { type: ms(0, 1_000_000_000), default: 1000, doc: 'oldest P-Chain height a client may ask for, in heights below the current one (as icm-services); older is 400 (0: no bound)' },
  'signatureCache.maxMessages': { type: ms(0, 10_000_000), default: 10_000, doc: 'messages whose signatures are kept' },
  'signatureCache.maxSignatures': { type: ms(0, 100_000_000), default: 200_000, doc: 'signatures kept in all' },
  'signatureCache.ttlMs': { type: ms(0, 86_400_000), default: 600_000, doc: 'how long a signature is kept' },
  'readiness.subnets': { type: { kind: 'idList' }, default: [], doc: 'subnet IDs (cb58) whose connected stake /ready checks' },
  'readiness.quorumPercentage': { type: ms(0, 100), default: 67, doc: 'connected stake /ready requires' },
  'peerAdmission.mode': { type: { kind: 'string', enum: ['validators', 'any'] }, default: 'validators', doc: 'which signers may dial in on peerPath: validators admits only keys of the validator sets warpgate reads (readiness.subnets, kept current, and the sets aggregations read) or in allowedKeys, checked before the costly proof check; any admits every key (private networks only)' },
  'peerAdmission.allowedKeys': { type: { kind: 'blsKeyList' }, default: [], doc: 'BLS public keys (hex, 48 bytes) that may dial in whatever the validator sets say' },
  'peerAdmission.setRefreshMs': { type: ms(1000, 3_600_000), default: 30_000, doc: 'how often the current validator sets of readiness.subnets are read for admission' },
  'peerAdmission.maxInboundPeers': { type: ms(1, 100_000), default: 10_000, doc: 'authenticated signers that dialed in, at most (past it refused); the signers in peers never count against it' },
  'peerAdmission.maxPendingHandshakes': { type: ms(1, 100_000), default: 256, doc: 'connections that dialed in and have not authenticated yet, at once (past it 503)' },
  'peerAdmission.maxPendingPerIp': { type: ms(1, 100_000), default: 8, doc: 'the same from one client address, an IPv6 client by its /64 (past it 429)' },
  'peerAdmission.handshakesPerMinutePerIp': { type: ms(0, 10_000_000), default: 60, doc: 'connections a client address may open on peerPath per minute (0: no limit; past it 429)' },
  'peerAdmission.helloTimeoutMs': { type: ms(100, 120_000), default: 3000, doc: 'how long a signer that dialed in has to answer the challenge with its hello' },
  publicMode: { type: { kind: 'bool' }, default: false, doc: 'refuse node-specific methods as the public server does' },
  'rateLimit.requestsPerMinute': { type: ms(0, 10_000_000), default: 600, doc: 'per client IP without an API key (0: no limit)' },
  'rateLimit.keyedRequestsPerMinute': { type: ms(0, 10_000_000), default: 6000, doc: 'per API key (0: no limit)' },
  'rateLimit.aggregationsPerMinute': { type: ms(0, 10_000_000), default: 120, doc: 'aggregation requests (both APIs, POST and the txHash GET) per client IP, API key or not; past it 429 with Retry-After (0: no limit)' },
  'proxy.timeoutMs': { type: ms(100, 300_000), default: 10_000, doc: 'upstream request timeout' },
  'proxy.maxResponseBytes': { type: ms(1024, 1_073_741_824), default: 10_485_760, doc: 'largest upstream answer passed on' },
  'proxy.cacheTtlMs': { type: ms(0, 3_600_000), default: 10_000, doc: 'cache of cacheable GETs (0: off)' },
  'limits.bodyBytes': { type: ms(1024, 10_485_760), default: 262_144, doc: 'largest request body; past it 413' },
  'limits.justificationBytes': { type: ms(1024, 10_485_760), default: 65_536, doc: 'largest justification of an aggregation request (bytes, decoded); past it 413 naming the field' },
  'limits.headersTimeoutMs': { type: ms(1000, 600_000), default: 20_000, doc: 'time to receive request headers' },
  'limits.requestTimeoutMs': { type: ms(1000, 600_000), default: 60_000, doc: 'time to receive a whole request' },
  'limits.keepAliveTimeoutMs': { type: ms(100, 600_000), default: 5000, doc: 'idle keep-alive connection lifetime' },
  'cors.origins': { type: { kind: 'stringList' }, default: [], doc: 'allowed CORS origins (empty: CORS off; "*": any)' },
  shutdownGraceMs: { type: ms(0, 600_000), default: 10_000, doc: 'how long shutdown waits for in-flight aggregations' },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof SCHEMA;

/** WARPGATE_ + the key path in SCREAMING_SNAKE: aggregation.deadlineMs → WARPGATE_AGGREGATION_DEADLINE_MS. */
export function envName(key: string): string {
  return `WARPGATE_${key
    .split('.')
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
    .join('_')}`;
}
