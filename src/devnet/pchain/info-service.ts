// The simulated node's `info.*` and `health.*` services (avalanchego api/info and api/health):
// enough of them for clients that check the network ID, the node's version and identity, and
// whether the node is healthy before trusting it, and that learn validators' addresses from
// info.peers.
import { cb58Encode, nodeIdToString } from '../../warp/cb58.js';
import { bytesTo0xHex } from '../../warp/hex.js';
import type { DevnetGenesis } from '../genesis/types.js';
import { JsonRpcError } from './json-rpc-errors.js';
import type { JsonRpcService } from './json-rpc-server.js';
import { knownChains } from './platform-service.js';
import { DEVNET_EPOCH_DURATION_NS } from './proposervm-service.js';

const SIMULATED_NODE_VERSION = 'avalanchego/1.14.0';

/** upgrade.InitiallyActiveTime and upgrade.UnscheduledActivationTime (avalanchego upgrade/upgrade.go). */
const INITIALLY_ACTIVE = '2020-12-05T05:00:00Z';
const UNSCHEDULED = '9999-12-01T00:00:00Z';

/**
 * info.upgrades: the upgrade.Config a local network runs (upgrade.Default): every upgrade active
 * from the start, Granite included, epochs of 30 s. Go writes a time.Duration as nanoseconds.
 */
function upgrades(): Record<string, unknown> {
  const active = (names: string[]): Record<string, string> => Object.fromEntries(names.map((n) => [n, INITIALLY_ACTIVE]));
  return {
    ...active(['apricotPhase1Time', 'apricotPhase2Time', 'apricotPhase3Time', 'apricotPhase4Time']),
    apricotPhase4MinPChainHeight: 0,
    ...active(['apricotPhase5Time', 'apricotPhasePre6Time', 'apricotPhase6Time', 'apricotPhasePost6Time', 'banffTime', 'cortinaTime']),
    cortinaXChainStopVertexID: cb58Encode(new Uint8Array(32)),
    ...active(['durangoTime', 'etnaTime', 'fortunaTime', 'graniteTime']),
    graniteEpochDuration: DEVNET_EPOCH_DURATION_NS,
    heliconTime: UNSCHEDULED,
  };
}

const NETWORK_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'mainnet'],
  [5, 'fuji'],
  [12345, 'local'],
]);

/** A peer the simulated node is connected to: the simulated avalanchego validators. */
export interface InfoPeer {
  nodeId: string;
  /** The address it listens on and signed (info.peers `publicIP`). */
  host: string;
  port: number;
}

/** Go's netip.AddrPort text: IPv6 in brackets. */
function addrPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * info.peers as avalanchego answers it (api/info/service.go, network/peer/info.go): `ip` is the
 * remote end of the connection (for a peer that dialled in, an ephemeral port: here a made-up
 * one, so a client that dials it finds nobody), `publicIP` the address the peer signed.
 */
function peersReply(peers: readonly InfoPeer[], only: ReadonlySet<string> | undefined): unknown {
  const listed = peers.filter((p) => !only || only.has(p.nodeId));
  return {
    numPeers: String(listed.length),
    peers: listed.map((p, i) => ({
      ip: addrPort(p.host, 40_000 + (i % 20_000)),
      publicIP: addrPort(p.host, p.port),
      nodeID: p.nodeId,
      version: SIMULATED_NODE_VERSION,
      upgradeTime: 0,
      lastSent: new Date().toISOString(),
      lastReceived: new Date().toISOString(),
      observedUptime: '100',
      trackedSubnets: [],
      supportedACPs: [],
      objectedACPs: [],
      benched: [],
    })),
  };
}

export function infoService(genesis: DevnetGenesis, peers: () => readonly InfoPeer[] = () => [], nodeVersion = SIMULATED_NODE_VERSION): JsonRpcService {
  const chains = knownChains(genesis);
  return {
    name: 'info',
    methods: {
      getNetworkID: () => ({ networkID: String(genesis.networkId) }),
      getNetworkName: () => ({ networkName: NETWORK_NAMES.get(genesis.networkId) ?? `network-${genesis.networkId}` }),
      getNodeVersion: () => ({
        version: nodeVersion,
        databaseVersion: 'v1.4.5',
        rpcProtocolVersion: '42',
        gitCommit: '0000000000000000000000000000000000000000',
        vmVersions: { avm: 'v1.14.0', evm: 'v0.15.3', platform: 'v1.14.0', subnetevm: 'v0.8.0' },
      }),
      getNodeID: () => ({
        nodeID: genesis.node.nodeId,
        nodePOP: { publicKey: bytesTo0xHex(genesis.node.publicKey), proofOfPossession: bytesTo0xHex(genesis.node.proofOfPossession) },
      }),
      peers: (args) => {
        const filter = args.nodeIds('nodeIDs');
        return peersReply(peers(), filter && filter.length > 0 ? new Set(filter.map(nodeIdToString)) : undefined);
      },
      isBootstrapped: (args) => {
        const chain = args.string('chain') ?? '';
        if (chain === '') throw new JsonRpcError("argument 'chain' not given");
        if (!chains.has(chain)) throw new JsonRpcError(`there is no chain with alias/ID '${chain}'`);
        return { isBootstrapped: true };
      },
      upgrades,
      getBlockchainID: (args) => {
        const alias = args.string('alias') ?? '';
        const chain = chains.get(alias);
        if (!chain || chain.alias === undefined) throw new JsonRpcError(`there is no chain with alias/ID '${alias}'`);
        return { blockchainID: cb58Encode(chain.id) };
      },
    },
  };
}

/** A health report: `{checks, healthy}` as GET /ext/health and health.health answer it. */
export function healthReport(healthy: boolean, now: Date = new Date()): { checks: Record<string, unknown>; healthy: boolean } {
  const timestamp = now.toISOString();
  const failure = 'simulated failure: the node was told to fail (setFault("error"))';
  const check = (message: unknown): Record<string, unknown> =>
    healthy
      ? { message, timestamp, duration: 12_345 }
      : { message, error: failure, timestamp, duration: 12_345, contiguousFailures: 1, timeOfFirstFailure: timestamp };
  return {
    checks: {
      C: check({ engine: { consensus: { outstandingBlocks: 0 } } }),
      P: check({ engine: { consensus: { outstandingBlocks: 0 } } }),
      X: check({ engine: { consensus: { outstandingVertices: 0 } } }),
      bootstrapped: check([]),
      database: check(undefined),
      network: check({ connectedPeers: 0, timeSinceLastMsgReceived: '0s', timeSinceLastMsgSent: '0s' }),
      router: check({ longestRunningRequest: '0s', outstandingRequests: 0 }),
    },
    healthy,
  };
}

/** `health.health`, `health.readiness`, `health.liveness` (liveness has no checks and is always healthy). */
export function healthService(isHealthy: () => boolean): JsonRpcService {
  return {
    name: 'health',
    methods: {
      health: () => healthReport(isHealthy()),
      readiness: () => healthReport(isHealthy()),
      liveness: () => ({ checks: {}, healthy: true }),
    },
  };
}
