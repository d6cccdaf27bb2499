// `warpgate signer`: the validator-side peer. It proves the validator's BLS key to the service and
// signs only what its policy allows (or, with --node, what the validator's node signs).
// Logs JSON lines on stdout, the first with msg "signer ready"; exits 0 on SIGINT/SIGTERM.
import { pino } from 'pino';
import { loadBackend } from '../bls/index.js';
import { checkPeerUrl } from '../peers/dialer.js';
import { NodeBackend } from '../signer/node-backend.js';
import { KeyFileBackend, readSignerKey, secretKeyFromFile } from '../signer/key-file.js';
import { DEFAULT_INBOUND_LIMITS, DEFAULT_REQUEST_LIMITS, type InboundLimits, type RequestLimits } from '../signer/limits.js';
import { DEFAULT_MAX_CONNECTIONS, SignerPeer } from '../signer/peer.js';
import type { RateLimit } from '../signer/rate-limit.js';
import { CachedPolicy, DEFAULT_VERDICT_CACHE, type VerdictCacheOptions } from '../signer/verdict-cache.js';
import { policyFromConfig, readPolicyFile, type PolicyConfig } from '../signer/policy-file.js';
import { isPChain, P_CHAIN_NOT_STATIC } from '../signer/policy.js';
import { parseNodeUrl } from '../node/url.js';
import type { SigningBackend } from '../signer/types.js';
import { idToString, parseCb58Id } from '../warp/cb58.js';
import { intOption, parseArgs, UsageError, type ParsedArgs } from './args.js';
import { firstShutdownSignal } from './signals.js';

const USAGE = `usage: warpgate signer --key FILE (--listen PORT | --connect URL) [options]

  --key FILE                 the validator's BLS key: avalanchego's raw 32-byte signer.key
  --listen PORT              accept the service's connections on PORT (0 = any free port)
  --host HOST                address to listen on (default 127.0.0.1; 0.0.0.0 for all)
  --connect URL              dial the service, e.g. ws://service:8080/v1/peers (repeatable)
  --policy FILE              what to sign: {"networkId": N, "allowedSourceChains": ["<cb58>"],
                             "confirmWithNode": "http://127.0.0.1:9650",
                             "pchainNode": "http://127.0.0.1:9650"} (last two optional; pchainNode
                             signs P-Chain L1 messages that node's P-Chain state justifies)
  --network-id N             instead of --policy: the one network ID to sign for
  --allow-source-chain CB58  instead of --policy: a source chain to sign for (repeatable; not
                             the P-Chain, which only a policy file's pchainNode signs for)
  --node URL                 let the validator's node decide and sign (warp_getMessageSignature);
                             a policy is then optional and checked first

Limits (the defaults suit a signer serving a few services; see docs/signer.md):
  --max-requests-per-second N       requests over all connections (bursts of 2N); default 1000
  --max-concurrent-requests N       requests being decided and signed at once; default 256
  --max-connections N               connections at once; default 64
  --max-connections-per-ip N        --listen: connections from one address; default 8
  --max-handshakes-per-second N     --listen: new connections, each costing a key proof
                                    (bursts of 2N); default 10
  --max-handshakes-per-second-per-ip N
                                    --listen: the same from one address (bursts of 2N); default 2
  --verdict-cache-size N            policy verdicts remembered (only those that cannot change;
                                    0 = none); default 10000
  --verdict-cache-ttl-ms N          how long one is remembered; default 600000

Signing with the key needs a policy: --policy FILE, or --network-id with --allow-source-chain.
Both --listen and --connect may be given.
`;

const SPEC = {
  key: { type: 'string' },
  listen: { type: 'string' },
  host: { type: 'string' },
  connect: { type: 'string', multiple: true },
  policy: { type: 'string' },
  'network-id': { type: 'string' },
  'allow-source-chain': { type: 'string', multiple: true },
  node: { type: 'string' },
  'max-requests-per-second': { type: 'string' },
  'max-concurrent-requests': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-connections-per-ip': { type: 'string' },
  'max-handshakes-per-second': { type: 'string' },
  'max-handshakes-per-second-per-ip': { type: 'string' },
  'verdict-cache-size': { type: 'string' },
  'verdict-cache-ttl-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The options that set a limit: each takes an integer. */
type LimitFlag = Extract<keyof typeof SPEC, `max-${string}` | `verdict-${string}`>;

interface SignerLimits {
  requests: RequestLimits;
  maxConnections: number;
  inbound: InboundLimits;
  verdictCache: VerdictCacheOptions;
}

/** A rate of `perSecond` that may burst to twice that. */
const rate = (perSecond: number): RateLimit => ({ perSecond, burst: 2 * perSecond });

function limitOptions(options: ParsedArgs<typeof SPEC>['options']): SignerLimits {
  const int = (name: LimitFlag, min: number, max: number, fallback: number): number => {
    try {
      return intOption(options[name], name, min, max, fallback);
    } catch (err) {
      throw new UsageError(`signer: ${(err as Error).message}`);
    }
  };
  return {
    requests: {
      rate: rate(int('max-requests-per-second', 1, 1_000_000, DEFAULT_REQUEST_LIMITS.rate.perSecond)),
      maxConcurrent: int('max-concurrent-requests', 1, 100_000, DEFAULT_REQUEST_LIMITS.maxConcurrent),
    },
    maxConnections: int('max-connections', 1, 100_000, DEFAULT_MAX_CONNECTIONS),
    inbound: {
      maxConnectionsPerAddress: int('max-connections-per-ip', 1, 100_000, DEFAULT_INBOUND_LIMITS.maxConnectionsPerAddress),
      handshakeRate: rate(int('max-handshakes-per-second', 1, 100_000, DEFAULT_INBOUND_LIMITS.handshakeRate.perSecond)),
      handshakeRatePerAddress: rate(int('max-handshakes-per-second-per-ip', 1, 100_000, DEFAULT_INBOUND_LIMITS.handshakeRatePerAddress.perSecond)),
    },
    verdictCache: {
      maxEntries: int('verdict-cache-size', 0, 10_000_000, DEFAULT_VERDICT_CACHE.maxEntries),
      ttlMs: int('verdict-cache-ttl-ms', 1, 7 * 24 * 3_600_000, DEFAULT_VERDICT_CACHE.ttlMs),
    },
  };
}

function flagPolicy(networkId: string | undefined, chains: string[]): PolicyConfig {
  const id = intOption(networkId, 'network-id', 0, 0xffff_ffff, -1);
  return {
    networkId: id,
    allowedSourceChains: chains.map((c) => {
      let chain: Uint8Array;
      try {
        chain = parseCb58Id(c, '--allow-source-chain');
      } catch (err) {
        throw new UsageError(`signer: ${(err as Error).message}`);
      }
      if (isPChain(chain)) {
        throw new UsageError(
          `signer: --allow-source-chain: ${P_CHAIN_NOT_STATIC}; use a --policy file with "pchainNode" set to your node, which signs a P-Chain message only when the node's P-Chain state makes it true`,
        );
      }
      return chain;
    }),
  };
}

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, SPEC, 'signer');
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`signer: unexpected argument '${positionals[0]}'`);
  const keyPath = options.key;
  if (!keyPath) throw new UsageError('signer: --key FILE is required');
  const listen = options.listen === undefined ? undefined : intOption(options.listen, 'listen', 0, 65535, 0);
  const connect = options.connect ?? [];
  if (listen === undefined && connect.length === 0) throw new UsageError('signer: give --listen PORT or --connect URL');
  for (const url of connect) {
    try {
      checkPeerUrl(url);
    } catch (err) {
      throw new UsageError(`signer: --connect: ${(err as Error).message}`);
    }
  }
  let nodeUrl: string | undefined;
  if (options.node !== undefined) {
    try {
      nodeUrl = parseNodeUrl(options.node, '--node');
    } catch (err) {
      throw new UsageError(`signer: ${(err as Error).message}`);
    }
  }
  const policyPath = options.policy;
  const chains = options['allow-source-chain'] ?? [];
  const hasFlagPolicy = options['network-id'] !== undefined || chains.length > 0;
  if (policyPath && hasFlagPolicy) throw new UsageError('signer: give either --policy FILE or --network-id/--allow-source-chain, not both');
  if (hasFlagPolicy && (options['network-id'] === undefined || chains.length === 0)) {
    throw new UsageError('signer: --network-id and at least one --allow-source-chain go together');
  }
  const limits = limitOptions(options);
  if (!policyPath && !hasFlagPolicy && !nodeUrl) {
    throw new UsageError(
      'signer: a policy is required to sign with the key: --policy FILE, or --network-id N with --allow-source-chain CB58 (or --node URL to let the node decide)',
    );
  }

  const bls = loadBackend();
  const secretKey = secretKeyFromFile(bls, await readSignerKey(keyPath), keyPath);
  const policyConfig = policyPath ? await readPolicyFile(policyPath) : hasFlagPolicy ? flagPolicy(options['network-id'], chains) : undefined;
  // Verdicts that can never change are remembered, so a message asked again costs no node call.
  const policy = policyConfig ? new CachedPolicy(policyFromConfig(policyConfig), limits.verdictCache) : undefined;
  const backend: SigningBackend = nodeUrl
    ? new NodeBackend(nodeUrl, policy ? { policy } : {})
    : new KeyFileBackend(secretKey, bls, policy!);

  const logger = pino({ name: 'warpgate-signer' });
  const host = options.host ?? '127.0.0.1';
  const peer = new SignerPeer({
    secretKey,
    bls,
    backend,
    ...(listen === undefined ? {} : { listen: { port: listen, host } }),
    connect,
    logger,
    requestLimits: limits.requests,
    maxConnections: limits.maxConnections,
    inboundLimits: limits.inbound,
  });
  let port: number | undefined;
  try {
    ({ port } = await peer.start());
  } catch (err) {
    await peer.close();
    throw err;
  }
  const stopped = firstShutdownSignal();
  logger.info(
    {
      publicKey: peer.publicKeyHex,
      ...(port === undefined ? {} : { port, host }),
      connect,
      backend: nodeUrl ? 'node' : 'key',
      bls: bls.name,
      limits,
      ...(nodeUrl ? { node: nodeUrl } : {}),
      ...(policyConfig
        ? {
            policy: {
              networkId: policyConfig.networkId,
              allowedSourceChains: policyConfig.allowedSourceChains.map(idToString),
              ...(policyConfig.confirmWithNode ? { confirmWithNode: policyConfig.confirmWithNode } : {}),
              ...(policyConfig.pchainNode ? { pchainNode: policyConfig.pchainNode } : {}),
            },
          }
        : {}),
    },
    'signer ready',
  );
  const signal = await stopped;
  logger.info({ signal }, 'signer stopping');
  await peer.close();
  return 0;
}
