// Every configuration key in one zod schema: its kind, default and meaning. `Config` is the type
// this schema produces, so the type and the checks cannot disagree. The loader (config.ts) checks
// a config file, WARPGATE_* environment overrides and CLI overrides key by key against it;
// config.example.json and docs/configuration.md's table are checked against it by a test.
import { z } from 'zod';
import {
  blsKeyList,
  bool,
  clientVersionProblem,
  destinationList,
  hostProblem,
  idList,
  int,
  oneOf,
  optionalInt,
  optionalSecret,
  optionalPath,
  optionalUrl,
  optionalRedisUrl,
  proxyList,
  p2pPeerList,
  peerList,
  string,
  stringList,
  urlPathProblem,
  type Kind,
} from './kinds.js';
import { optionalAddress, optionalToken, relayerChainList, relayerKeyList, relayerRouteList } from './relayer-kinds.js';

/** What the configuration table (docs/configuration.md) and the loader know about one key besides its schema. */
interface SettingMeta {
  default: unknown;
  doc: string;
  type: string;
  fromEnv: z.core.$ZodType<unknown, string>;
}

const settings = new Map<z.core.$ZodType, SettingMeta>();

/** A key of kind `kind` with its default and meaning; the default is typed by the kind's output. */
function setting<S extends z.ZodType>(kind: Kind<S>, value: z.output<S>, doc: string): S {
  settings.set(kind.schema, { default: value, doc, type: kind.type, fromEnv: kind.fromEnv });
  return kind.schema;
}

export const CONFIG_SCHEMA = z
  .strictObject({
    port: setting(int(0, 65535), 8080, 'HTTP listen port'),
    host: setting(string(hostProblem), '0.0.0.0', 'HTTP listen address'),
    allowedHosts: setting(
      stringList(),
      [],
      'host names or IP literals the Host header of an HTTP request must name (any port); others get 403 (empty: no check). Set it, with every name clients and probes use, when browsers on other origins can reach the service (DNS rebinding)',
    ),
    metrics: z.strictObject({
      port: setting(optionalInt(0, 65535), null, 'serve /metrics on its own listener at metrics.host:metrics.port and not on the main port (null: on the main port, except in publicMode, where it is then not served; 0: an ephemeral port)'),
      host: setting(string(hostProblem), '127.0.0.1', 'listen address of the metrics listener (metrics.port)'),
    }),
    logLevel: setting(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info', 'pino log level'),
    logFormat: setting(oneOf(['auto', 'json', 'pretty']), 'auto', 'log lines: auto is pretty (time, level, component, message) when stdout is a terminal and JSON otherwise; json or pretty always'),
    upstreams: z.strictObject({
      node: setting(optionalUrl({ credentials: false }), null, 'avalanchego node base URL; the P-Chain is at /ext/bc/P'),
      dataApi: setting(optionalUrl(), null, 'Data API base URL for the forwarded read endpoints'),
      metricsApi: setting(optionalUrl(), null, 'Metrics API base URL'),
      apiKey: setting(optionalSecret(), null, 'sent upstream as x-glacier-api-key (never logged)'),
    }),
    localNetworkId: setting(optionalInt(1, 4294967295), null, 'a local network ID the aggregation endpoints accept under any {network} path value (the devnet sets it)'),
    peers: setting(peerList(), [], 'signer peers to dial: [{"url": "ws://host:port"}]'),
    peerPath: setting(string(urlPathProblem), '/v1/peers', 'path where signer peers may dial in'),
    bls: z.strictObject({
      backend: setting(oneOf(['blst', 'noble']), 'blst', 'BLS backend (noble is the pure-JS fallback)'),
    }),
    workers: z.strictObject({
      threads: setting(int(1, 64), 2, 'BLS worker threads'),
      maxQueue: setting(int(16, 1_000_000), 4096, 'BLS tasks waiting at most'),
    }),
    aggregation: z.strictObject({
      deadlineMs: setting(int(100, 60_000), 5000, 'longest an aggregation request may take, from its arrival to its answer, P-Chain reads included; past it 504'),
      requestTimeoutMs: setting(int(50, 60_000), 2000, 'longest one peer request may take; avalanchego peers are sent at most 10 s as the deadline (nodes cap it there), warpgate still waits this long'),
      fanOutExtraPercent: setting(int(0, 100), 100, 'weight asked beyond what is missing, in % of the total: 100 asks every connected validator at once (lowest latency); lower values spare validators and ask more only as answers fail or are slow'),
      hedgeMs: setting(int(10, 60_000), 250, 'a validator silent this long counts as slow and the next ones are asked'),
      maxConcurrent: setting(int(1, 10_000), 64, 'aggregations at once; past it 503 with Retry-After'),
      allowedSigningSubnets: setting(idList(), [], 'signing subnets (cb58) served; a request for any other is 403 and no peer is asked (empty: any)'),
      minimizeSigners: setting(bool(), true, 'the signed message carries the fewest signers that reach quorum + buffer, heaviest first (the destination charges gas per signer); false: every signature checked'),
    }),
    validatorSets: z.strictObject({
      currentTtlMs: setting(int(0, 600_000), 2000, "how long the current validator set, and the P-Chain's proposed height signed at without a destination epoch, are reused"),
      currentMaxStaleMs: setting(int(0, 600_000), 30_000, 'after the TTL, how long the current set still answers at once while it is refreshed in the background'),
      maxEntries: setting(int(1, 10_000), 64, 'validator sets kept'),
      nodeTimeoutMs: setting(int(100, 120_000), 5000, 'timeout of one P-Chain call'),
      maxLookback: setting(int(0, 1_000_000_000), 1000, 'oldest P-Chain height a client may ask for, in heights below the current one (as icm-services); older is 400 (0: no bound)'),
    }),
    destinations: setting(
      destinationList(),
      [],
      'where a destination chain\'s current epoch is read (proposervm.getCurrentEpoch at rpcUrl/proposervm); a chain not listed is read on upstreams.node at /ext/bc/{id}/proposervm',
    ),
    epochs: z.strictObject({
      durationMs: setting(optionalInt(0, 86_400_000), null, 'the ACP-181 epoch duration D; null: the node\'s info.upgrades graniteEpochDuration'),
      minRefreshMs: setting(int(100, 600_000), 1000, 'an epoch past its end (an idle chain), the zero epoch (before Granite), or any epoch while D is unknown, is read again at most this often'),
      maxEntries: setting(int(1, 100_000), 1024, 'destination chains whose epoch is kept'),
    }),
    signatureCache: z.strictObject({
      maxMessages: setting(int(0, 10_000_000), 10_000, 'messages whose signatures are kept'),
      maxSignatures: setting(int(0, 100_000_000), 200_000, 'signatures kept in all'),
      ttlMs: setting(int(0, 86_400_000), 600_000, 'how long a signature is kept'),
    }),
    readiness: z.strictObject({
      subnets: setting(idList(), [], 'subnet IDs (cb58) whose connected stake /ready checks'),
      quorumPercentage: setting(int(0, 100), 67, 'connected stake /ready requires'),
    }),
    peerAdmission: z.strictObject({
      mode: setting(oneOf(['validators', 'any']), 'validators', 'which signers may dial in on peerPath: validators admits only keys of the validator sets warpgate reads (readiness.subnets, kept current, and the sets aggregations read) or in allowedKeys, checked before the costly proof check; any admits every key (private networks only)'),
      allowedKeys: setting(blsKeyList(), [], 'BLS public keys (hex, 48 bytes) that may dial in whatever the validator sets say'),
      setRefreshMs: setting(int(1000, 3_600_000), 30_000, 'how often the current validator sets of readiness.subnets are read (for admission, p2p connections and the status page)'),
      maxInboundPeers: setting(int(1, 100_000), 10_000, 'authenticated signers that dialed in, at most (past it refused); the signers in peers never count against it'),
      maxPendingHandshakes: setting(int(1, 100_000), 256, 'connections that dialed in and have not authenticated yet, at once (past it 503)'),
      maxPendingPerIp: setting(int(1, 100_000), 8, 'the same from one client address, an IPv6 client by its /64 (past it 429)'),
      handshakesPerMinutePerIp: setting(int(0, 10_000_000), 60, 'connections a client address may open on peerPath per minute (0: no limit; past it 429)'),
      helloTimeoutMs: setting(int(100, 120_000), 3000, 'how long a signer that dialed in has to answer the challenge with its hello'),
    }),
    peerPenalties: z.strictObject({
      threshold: setting(int(1, 1000), 3, 'faults of one signer peer (invalid signatures, protocol violations; by BLS key, dialed or dialed in) within windowMs that disconnect it and refuse it for cooldownMs'),
      windowMs: setting(int(1000, 86_400_000), 60_000, 'window in which a signer peer\'s faults are counted'),
      cooldownMs: setting(int(0, 86_400_000), 300_000, 'how long a penalized signer peer is refused (and not redialled)'),
    }),
    p2p: z.strictObject({
      enabled: setting(bool(), true, 'ask unmodified avalanchego validators for signatures over their own peer protocol (ACP-118), beside the signer peers; it runs whenever upstreams.node is set, which supplies the network ID, validator sets and addresses'),
      tlsCertFile: setting(optionalPath(), null, "staking certificate (PEM, avalanchego's staker.crt): warpgate's NodeID, for subnets that admit only allowedNodes (`warpgate keygen --staking`, `warpgate identity --tls-cert`); null: a new one each start. Replicas must not share one"),
      tlsKeyFile: setting(optionalPath(), null, 'its private key (PEM, staker.key); set together with tlsCertFile'),
      blsKeyFile: setting(optionalPath(), null, "BLS key (avalanchego's signer.key) that signs the address warpgate claims; null: a new one each start (a non-validator has no registered key to match)"),
      version: setting(string(clientVersionProblem), 'avalanchego/1.15.0', 'client version claimed in the Handshake; nodes refuse a higher major or one below their minimum (mainnet 1.14.0, Fuji 1.15.0); the upstream node\'s own version (info.getNodeVersion) is claimed instead when it is newer'),
      peers: setting(p2pPeerList(), [], 'validators to connect to besides those discovered (info.peers of upstreams.node, PeerList gossip); enough alone'),
      maxPeers: setting(int(1, 100_000), 1000, 'avalanchego validators connected (or being dialled) at most, the heaviest of the subnets being signed for first'),
      dialConcurrency: setting(int(1, 1000), 32, 'dials (TCP, TLS, Handshake) under way at once'),
      maxOutstandingRequests: setting(int(1, 100_000), 1024, 'signature requests outstanding per validator connection; past it the request fails at once'),
      connectTimeoutMs: setting(int(100, 120_000), 10_000, 'longest a TCP connect and TLS handshake to a validator may take'),
      reconnectMinIntervalMs: setting(int(10_000, 3_600_000), 10_000, 'never two dials to one validator closer than this (nodes accept one inbound connection per IP per 10 s)'),
      reconnectMaxMs: setting(int(10_000, 86_400_000), 300_000, 'longest wait between dials to a validator that keeps failing (exponential backoff up to it)'),
      penaltyThreshold: setting(int(1, 1000), 3, 'faults (protocol violations, invalid signatures) within penaltyWindowMs that ban a validator connection'),
      penaltyWindowMs: setting(int(1000, 86_400_000), 600_000, 'window in which penalty faults are counted'),
      penaltyCooldownMs: setting(int(0, 86_400_000), 600_000, 'how long a banned validator is not dialled'),
      infoPeers: setting(bool(), true, 'read validator addresses from info.peers of upstreams.node; off (e.g. where the provider hides info.peers): only p2p.peers and PeerList gossip, which finds the validators of readiness.subnets, tracked in the Handshake'),
      discoveryIntervalMs: setting(int(1000, 3_600_000), 60_000, 'how often info.peers of upstreams.node is read for validator addresses'),
      ioShards: setting(int(0, 64), 0, "worker threads that hold the validator connections (TLS, framing, compression, protobuf), each a slice of the validators; 0: the main thread holds them. For machines with idle cores: it takes the transport's work off the event loop that serves HTTP and decides quorum; each shard costs CPU for the hand-offs and ~80 MB at 1,000 validators, and gains nothing measurable on 2 cores (docs/performance.md)"),
    }),
    trustProxy: setting(proxyList(), [], 'load balancers (addresses, CIDR ranges, or loopback / linklocal / uniquelocal) whose X-Forwarded-For names the client: rate limits then count the client, not the balancer. Empty: no proxy is trusted, the TCP peer is the client'),
    redis: z.strictObject({
      url: setting(optionalRedisUrl(), null, 'Redis shared by replicas (redis://[user:password@]host:port[/db], rediss:// for TLS): one signature cache, one collection per identical request, one rate limit per client (docs/replicas.md); null: all in process. Redis down never fails an aggregation: each replica falls back to its own'),
      keyPrefix: setting(string((v) => (v.length > 64 ? 'must be at most 64 characters' : undefined)), 'warpgate:', 'prefix of every key and channel warpgate uses in Redis (several deployments may share one Redis)'),
      commandTimeoutMs: setting(int(10, 60_000), 500, 'longest one Redis command may take; past it the replica goes on with its local state'),
      connectTimeoutMs: setting(int(100, 120_000), 2000, 'longest a connection attempt to Redis may take'),
      leaseMs: setting(int(200, 60_000), 2000, 'lease of the replica collecting for an identical request, renewed while it collects: how soon another takes over if it dies'),
    }),
    publicMode: setting(
      bool(),
      false,
      'refuse node-specific methods as the public server does, serve no status page (/, /status, /status.json answer 404), /metrics only on metrics.port, /ready without its reasons and stakes, and /openapi.json without the peer path',
    ),
    rateLimit: z.strictObject({
      requestsPerMinute: setting(int(0, 10_000_000), 600, 'per client IP without an API key (0: no limit)'),
      keyedRequestsPerMinute: setting(int(0, 10_000_000), 6000, 'per API key (0: no limit)'),
      aggregationsPerMinute: setting(int(0, 10_000_000), 120, 'aggregation requests (both APIs, POST and the txHash GET) per client IP, API key or not; past it 429 with Retry-After (0: no limit)'),
    }),
    proxy: z.strictObject({
      timeoutMs: setting(int(100, 300_000), 10_000, 'upstream request timeout'),
      maxResponseBytes: setting(int(1024, 1_073_741_824), 10_485_760, 'largest upstream answer passed on'),
      cacheTtlMs: setting(int(0, 3_600_000), 10_000, 'cache of cacheable GETs (0: off)'),
    }),
    limits: z.strictObject({
      bodyBytes: setting(int(1024, 10_485_760), 262_144, 'largest request body; past it 413'),
      justificationBytes: setting(int(1024, 10_485_760), 65_536, 'largest justification of an aggregation request (bytes, decoded); past it 413 naming the field'),
      headersTimeoutMs: setting(int(1000, 600_000), 20_000, 'time to receive request headers'),
      requestTimeoutMs: setting(int(1000, 600_000), 60_000, 'time to receive a whole request'),
      keepAliveTimeoutMs: setting(int(100, 600_000), 5000, 'idle keep-alive connection lifetime'),
    }),
    cors: z.strictObject({
      origins: setting(stringList(), [], 'allowed CORS origins (empty: CORS off; "*": any)'),
    }),
    status: z.strictObject({
      recentAggregations: setting(int(1, 1000), 50, 'aggregations the status page lists, newest first'),
      validatorsPerSubnet: setting(int(1, 10_000), 100, 'validators the status page lists per subnet, heaviest first'),
      trackedValidators: setting(int(1, 1_000_000), 10_000, 'signer keys whose last answer and penalties the status page remembers (the least recently heard from are forgotten first)'),
      refreshMs: setting(int(250, 600_000), 2000, 'how often the status page asks again; /status.json answers every asker within this interval from one look'),
    }),
    relayer: z.strictObject({
      chains: setting(relayerChainList(), [], 'the chains the relayer reads and delivers to (docs/relayer.md): blockchainId (cb58), rpcUrl (JSON-RPC, …/ext/bc/{id}/rpc), wsUrl (WebSocket, live logs; optional), teleporterAddress (the TeleporterMessenger there)'),
      routes: setting(relayerRouteList(), [], 'what is relayed: source and destination (blockchain IDs of relayer.chains), allowedOriginSenders and allowedDestinations (addresses; empty: any), maxRequiredGasLimit (a message asking more is skipped; default 2000000), startHeight ("head", the default, or a block number: where a route without a checkpoint starts). None: no relayer runs'),
      keys: setting(relayerKeyList(), [], 'where the delivery keys are (hex secp256k1 private keys): {"file": "/path"} or {"env": "VARIABLE"}; each key has its own nonces. The keys themselves are never in the config, never logged'),
      rewardAddress: setting(optionalAddress(), null, "Teleporter's relayerRewardAddress on deliveries (fees paid to the relayer go there); null: the delivering key's own address"),
      maxFeePerGasGwei: setting(int(1, 1_000_000), 500, 'the highest maxFeePerGas a delivery (or a fee bump of one) offers, in gwei (nAVAX on the C-Chain)'),
      receiptTimeoutMs: setting(int(1000, 3_600_000), 60_000, 'how long a delivery waits for its receipt before bumping the fee (up to maxFeePerGasGwei) or retrying later'),
      maxInFlight: setting(int(1, 10_000), 32, 'messages being signed or delivered at once, per route'),
      maxBacklog: setting(int(1, 10_000_000), 10_000, 'messages per route waiting for delivery (queued or waiting to retry); past it the source is not read further until it drains (the checkpoint keeps the rest)'),
      catchUpBlocks: setting(int(1, 100_000), 1000, 'blocks per eth_getLogs call when catching up from a checkpoint'),
      rpcConcurrency: setting(int(1, 1000), 4, 'RPC calls to one chain at once'),
      storePath: setting(string(), 'warpgate-relayer', "where the embedded store keeps the messages' states and the checkpoints (created if absent; survives kill -9). With redis.url the store is Redis instead (docs/relayer.md)"),
      leaseTtlMs: setting(int(1000, 600_000), 15_000, 'with redis.url: how long a route\'s lease lives without renewal (renewed every third of it): how soon a standby takes over a relayer that died (docs/relayer.md, "Running a standby")'),
      pruneAfterMs: setting(int(60_000, 31_536_000_000), 604_800_000, 'delivered and skipped messages are forgotten this long after their last update'),
      manualRelayToken: setting(optionalToken(), null, 'bearer token of the manual relay API (POST /relay, POST /relay/message), which spends gas; null: the API is off. Never served in publicMode'),
      lowBalanceGwei: setting(int(0, Number.MAX_SAFE_INTEGER), 1_000_000_000, 'a delivery key whose balance on a destination falls below this (gwei) is reported by a warning and warpgate_relayer_key_low_balance'),
    }),
    shutdownGraceMs: setting(int(0, 600_000), 10_000, 'how long shutdown waits for in-flight aggregations'),
  })
  .check((ctx) => {
    const { aggregation, limits, p2p } = ctx.value;
    const fail = (path: (string | number)[], message: string): void => void ctx.issues.push({ code: 'custom', path, message, input: ctx.value });
    if (aggregation.requestTimeoutMs > aggregation.deadlineMs) fail(['aggregation', 'requestTimeoutMs'], 'must not exceed aggregation.deadlineMs');
    // Node's HTTP server would never apply a headers timeout longer than the whole-request one.
    if (limits.headersTimeoutMs > limits.requestTimeoutMs) fail(['limits', 'headersTimeoutMs'], 'must not exceed limits.requestTimeoutMs');
    if ((p2p.tlsCertFile === null) !== (p2p.tlsKeyFile === null)) fail(['p2p', p2p.tlsCertFile === null ? 'tlsCertFile' : 'tlsKeyFile'], 'p2p.tlsCertFile and p2p.tlsKeyFile are set together or not at all');
    if (p2p.reconnectMaxMs < p2p.reconnectMinIntervalMs) fail(['p2p', 'reconnectMaxMs'], 'must not be below p2p.reconnectMinIntervalMs');
    relayerProblems(ctx.value.relayer, fail);
  });

/** The rules between the relayer's keys: routes between listed chains, and a key to pay with. */
function relayerProblems(
  relayer: { chains: readonly { blockchainId: string }[]; routes: readonly { source: string; destination: string }[]; keys: readonly unknown[] },
  fail: (path: (string | number)[], message: string) => void): void {
  const chains = new Set(relayer.chains.map((c) => c.blockchainId));
  relayer.routes.forEach((route, i) => {
    for (const end of ['source', 'destination'] as const) {
      if (!chains.has(route[end])) fail(['relayer', 'routes', i, end], `${route[end]} is not a chain of relayer.chains`);
    }
  });
  if (relayer.routes.length > 0 && relayer.keys.length === 0) fail(['relayer', 'keys'], 'relayer.routes needs at least one key to deliver with');
}

export type Config = z.output<typeof CONFIG_SCHEMA>;

/** Dotted paths of the leaves of T: `port`, `aggregation.deadlineMs`, … (lists are leaves). */
type LeafPaths<T> = {
  [K in keyof T & string]: T[K] extends readonly unknown[] | string | number | boolean | null ? K : `${K}.${LeafPaths<T[K]>}`;
}[keyof T & string];

export type ConfigKey = LeafPaths<Config>;

/** One key as the loader and the configuration table see it. */
interface Setting {
  /** Checks a value from the file or an override; its output is what Config holds. */
  schema: z.core.$ZodType;
  fromEnv: z.core.$ZodType<unknown, string>;
  default: unknown;
  doc: string;
  /** The configuration table's type column. */
  type: string;
}

function leaves(shape: z.core.$ZodShape, prefix: string): [string, Setting][] {
  return Object.entries(shape).flatMap(([name, schema]): [string, Setting][] => {
    const key = prefix + name;
    const meta = settings.get(schema);
    if (meta) return [[key, { schema, ...meta }]];
    if (schema instanceof z.ZodObject) return leaves(schema.shape, `${key}.`);
    throw new Error(`config schema: ${key} is neither a setting nor a group of settings`);
  });
}

/** Every key, in the schema's (and the configuration table's) order. */
export const SCHEMA: Readonly<Record<ConfigKey, Setting>> = Object.fromEntries(leaves(CONFIG_SCHEMA.shape, '')) as Record<ConfigKey, Setting>;

/** WARPGATE_ + the key path in SCREAMING_SNAKE: aggregation.deadlineMs → WARPGATE_AGGREGATION_DEADLINE_MS. */
export function envName(key: string): string {
  return `WARPGATE_${key
    .split('.')
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
    .join('_')}`;
}
