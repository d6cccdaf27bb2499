// A whole local network in one process tree: the simulated P-Chain node (in this process), the
// validators (in child processes: `warpgate signer` peers, simulated avalanchego nodes, or both),
// and the service wired to them. Used by `warpgate devnet`, by `warpgate serve` without a config,
// by the tests and by the benchmark.
//
// Transports: `ws` runs every validator as a signer peer; `p2p` every validator as a simulated
// avalanchego node, which the service reaches over avalanchego's own peer protocol (addresses
// from the P-Chain node's info.peers); `mixed` (the default) the even-numbered validators as
// avalanchego nodes and the odd ones as signers, so validators 1 and 2, which share a BLS key,
// make one canonical validator reachable both ways.
import type { ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { bytesToHex } from '../warp/hex.js';
import { idToString } from '../warp/cb58.js';
import { encodeAddressedCall } from '../warp/payload.js';
import { encodeTeleporterMessage, TELEPORTER_MESSENGER_V1_ADDRESS } from '../warp/teleporter.js';
import { newUnsignedMessage } from '../warp/unsigned-message.js';
import { loadConfig, type Config } from '../config/config.js';
import { startService, type Service, type ServiceOptions } from '../service/start.js';
import { l1MessageBuilder } from '../service/l1-builder.js';
import { createLogger } from '../service/logger.js';
import { reservePort } from '../service/http-server.js';
import { buildGenesis, type DevnetGenesis } from './genesis/index.js';
import { startPChainNode, type SimulatedNode } from './pchain/node.js';
import type { InfoPeer } from './pchain/info-service.js';
import { startSignerHost } from './signers/launch.js';
import type { HostedSigner, SignerHostReady } from './signers/protocol.js';
import { SignerSupervisor, type RestartPolicy } from './signers/supervisor.js';
import { startNodeHost } from './avalanchego-node/launch.js';
import type { HostedNode, NodeHostReady } from './avalanchego-node/protocol.js';

/** How the devnet's validators are reached: signer peers, simulated avalanchego nodes, or both. */
export type DevnetTransport = 'ws' | 'p2p' | 'mixed';
export const DEVNET_TRANSPORTS: readonly DevnetTransport[] = ['ws', 'p2p', 'mixed'];

/** Whether validator `index` runs as a simulated avalanchego node. */
function runsAvalanchego(transport: DevnetTransport, index: number): boolean {
  return transport === 'p2p' || (transport === 'mixed' && index % 2 === 0);
}

/** About 100 validators a host process, at least two processes (when there are two), at most 16. */
function spread<T>(items: T[], processes?: number): T[][] {
  if (items.length === 0) return [];
  const n = Math.max(1, Math.min(processes ?? Math.min(16, Math.max(2, Math.ceil(items.length / 100))), items.length));
  return Array.from({ length: n }, (_, i) => items.filter((_, j) => j % n === i));
}

interface DevnetOptions {
  validators?: number;
  /** Default 'mixed'. */
  transport?: DevnetTransport;
  seed?: string;
  byzantine?: number;
  /** The P-Chain height of the L1 chain's first epoch (default: one below the featured registration). */
  epochHeight?: number;
  port?: number;
  host?: string;
  /** Child processes hosting the signers. */
  signerProcesses?: number;
  /** Every signer waits this long before answering a request (slow-signer tests). */
  signerDelayMs?: number;
  logger?: Logger;
  /** Config keys to set on the devnet's service (e.g. aggregation.deadlineMs for tests). */
  configOverrides?: Record<string, unknown>;
  serviceOptions?: ServiceOptions;
  readyTimeoutMs?: number;
  /** How signer host processes that die are restarted (tests shorten it). */
  signerRestart?: Partial<RestartPolicy>;
}

export interface Devnet {
  genesis: DevnetGenesis;
  node: SimulatedNode;
  service: Service;
  config: Config;
  /** The one JSON line `warpgate devnet --json` prints. */
  info: DevnetInfo;
  /** The signer host processes running now (a host that died and is being restarted has none). */
  readonly signerHosts: ChildProcess[];
  /** Their supervisors, one per host, in the order of signerHosts at start. */
  signerSupervisors: readonly SignerSupervisor[];
  /** Kills one signer host for good, without a restart (tests use it to take stake offline). */
  stopSignerHost(index: number): Promise<void>;
  /** The supervisors of the processes hosting simulated avalanchego nodes. */
  nodeSupervisors: readonly SignerSupervisor<HostedNode, NodeHostReady>[];
  /** Kills one avalanchego host for good, without a restart. */
  stopNodeHost(index: number): Promise<void>;
  /** A fresh unsigned message from the devnet's EVM chain (hex), for examples and smoke tests. */
  exampleMessageHex(text?: string): string;
  /**
   * An unsigned message from the devnet's EVM chain carrying a Teleporter message (from
   * TeleporterMessenger's address) whose destinationBlockchainID is that chain too: the chain
   * that verifies it at its epoch's P-Chain height.
   */
  exampleTeleporterMessageHex(text?: string): string;
  close(): Promise<void>;
}

interface DevnetInfo {
  url: string;
  networkId: number;
  subnetId: string;
  blockchainId: string;
  pchainUrl: string;
  validators: number;
  l1ConversionTxId: string;
  byzantine: string[];
  /** Signer peers (distinct BLS keys of the validators that run `warpgate signer`). */
  signers: number;
  transport: DevnetTransport;
  /** Every simulated avalanchego validator and where it listens. */
  p2p: InfoPeer[];
  /** Chains whose epoch a warpgate reads at `rpcUrl`/proposervm: the `destinations` config key's shape. */
  destinations: { blockchainId: string; rpcUrl: string }[];
}

export async function startDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const validators = opts.validators ?? 8;
  const transport = opts.transport ?? 'mixed';
  const genesis = buildGenesis({ validators, seed: opts.seed ?? 'warpgate', byzantine: opts.byzantine ?? 0, avalanchegoNodes: (i) => runsAvalanchego(transport, i) });
  const port = opts.port ?? 8080;
  const host = opts.host ?? '127.0.0.1';
  // The service's port is bound before anything of the devnet listens: the P-Chain node and the
  // validators listen on ports the kernel picks (port 0), and a port given in the ephemeral
  // range could otherwise be handed to one of them first. The service takes this socket over.
  const reserved = port === 0 ? undefined : await reservePort({ host, port });
  /** What the P-Chain node's info.peers lists: the avalanchego validators, once their hosts are up. */
  let avalanchegoPeers: InfoPeer[] = [];
  let node: SimulatedNode;
  try {
    node = await startPChainNode({ genesis, epochHeight: opts.epochHeight, peers: () => avalanchegoPeers });
  } catch (err) {
    reserved?.close();
    throw err;
  }
  const supervisors: SignerSupervisor[] = [];
  const nodeSupervisors: SignerSupervisor<HostedNode, NodeHostReady>[] = [];
  let service: Service | undefined;
  // The service's logger once it runs; before that (a host dying during startup) a fresh one.
  let logger: Logger | undefined = opts.logger;
  const log = (): Logger => (logger ??= createLogger('info'));
  const cleanup = async (): Promise<void> => {
    // A service that started owns the reserved socket; one that did not leaves it to us.
    if (service) await service.close();
    else reserved?.close();
    // Stopping the supervisors first: a host must not be restarted while the devnet goes down.
    await Promise.all([...supervisors, ...nodeSupervisors].map((s) => s.stop()));
    await node.close();
  };

  try {
    // One signer per distinct key (two node IDs may share a key), spread over a few processes.
    const distinct = new Map<string, HostedSigner>();
    const hostedNodes: HostedNode[] = [];
    for (const v of genesis.validators) {
      const hex = bytesToHex(v.secretKey);
      if (v.staking) hostedNodes.push({ certPem: v.staking.certPem, keyPem: v.staking.keyPem, secretKeyHex: hex, ...(v.fault ? { fault: v.fault } : {}) });
      else if (!distinct.has(hex)) distinct.set(hex, { secretKeyHex: hex, fault: v.fault, answerDelayMs: opts.signerDelayMs });
    }
    const all = [...distinct.values()];
    const backend = (opts.configOverrides?.['bls.backend'] as 'blst' | 'noble' | undefined) ?? 'blst';
    const launch = (signers: HostedSigner[]): Promise<{ child: ChildProcess; ready: SignerHostReady }> => startSignerHost(signers, genesis, backend, node.url);
    // About 100 signers a process: each signs its handshake proofs (pure-JS BLS, ~20 ms each) on
    // its event loop, and a process blocked for long misses heartbeats.
    supervisors.push(
      ...spread(all, opts.signerProcesses).map(
        (signers, i) => new SignerSupervisor({ name: `signer host ${i}`, signers, launch, policy: opts.signerRestart, logger: () => log().child({ component: 'devnet' }) }),
      ),
    );
    nodeSupervisors.push(
      ...spread(hostedNodes, opts.signerProcesses).map(
        (nodes, i) =>
          new SignerSupervisor<HostedNode, NodeHostReady>({
            name: `avalanchego host ${i}`,
            kind: 'avalanchego',
            signers: nodes,
            launch: (group) => startNodeHost(group, genesis, backend, node.url),
            portsOf: (ready) => ready.nodes.map((n) => n.port),
            policy: opts.signerRestart,
            logger: () => log().child({ component: 'devnet' }),
          }),
      ),
    );
    // Every start settles before a failure is thrown, so cleanup() finds no host still starting.
    const settled = await Promise.allSettled([...supervisors.map((s) => s.start()), ...nodeSupervisors.map((s) => s.start())]);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const started = settled.slice(0, supervisors.length).map((r) => (r as PromiseFulfilledResult<SignerHostReady>).value);
    const peers = started.flatMap((ready) => ready.signers.map((x) => ({ url: `ws://127.0.0.1:${x.port}` })));
    avalanchegoPeers = settled
      .slice(supervisors.length)
      .flatMap((r) => (r as PromiseFulfilledResult<NodeHostReady>).value.nodes.map((n) => ({ nodeId: n.nodeId, host: '127.0.0.1', port: n.port })));

    const config = loadConfig({
      env: {},
      overrides: {
        port,
        host,
        'upstreams.node': node.url,
        peers,
        // The transport finds the avalanchego validators through the node's info.peers.
        'p2p.enabled': hostedNodes.length > 0,
        localNetworkId: genesis.networkId,
        'readiness.subnets': [idToString(genesis.subnetId)],
        // One local client (tests, the bench, a developer's script) sends hundreds a second.
        'rateLimit.aggregationsPerMinute': 0,
        ...(opts.configOverrides as object),
      },
    });
    service = await startService(config, { logger: opts.logger, l1: l1MessageBuilder, ...opts.serviceOptions, ...(reserved ? { listener: reserved } : {}) });
    logger ??= service.logger;

    // Ready once every signer has connected and proved its key, and every avalanchego node has
    // completed its Handshake with the service.
    const p2pConnected = (): number => service!.p2p?.connectedCount() ?? 0;
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 120_000);
    while (service.peers.connectedKeys().length < all.length || p2pConnected() < avalanchegoPeers.length) {
      if (Date.now() > deadline) {
        throw new Error(
          `devnet: only ${service.peers.connectedKeys().length} of ${all.length} signers and ${p2pConnected()} of ${avalanchegoPeers.length} avalanchego nodes connected in time`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }

    const info: DevnetInfo = {
      url: service.url,
      networkId: genesis.networkId,
      subnetId: idToString(genesis.subnetId),
      blockchainId: idToString(genesis.blockchainId),
      pchainUrl: node.url,
      validators: genesis.validators.length,
      l1ConversionTxId: genesis.l1ConversionTxId,
      byzantine: genesis.validators.filter((v) => v.fault).map((v) => v.nodeId),
      signers: all.length,
      transport,
      p2p: avalanchegoPeers,
      destinations: [{ blockchainId: idToString(genesis.blockchainId), rpcUrl: `${node.url}/ext/bc/${idToString(genesis.blockchainId)}` }],
    };
    const exampleMessageHex = (text = 'hello from the warpgate devnet'): string => {
      const payload = encodeAddressedCall(genesis.managerAddress, new TextEncoder().encode(text));
      return bytesToHex(newUnsignedMessage(genesis.networkId, genesis.blockchainId, payload).bytes);
    };
    let nonce = 0n;
    const exampleTeleporterMessageHex = (text = 'hello over Teleporter'): string => {
      const teleporter = encodeTeleporterMessage({
        messageNonce: ++nonce,
        originSenderAddress: genesis.managerAddress,
        destinationBlockchainID: genesis.blockchainId,
        destinationAddress: genesis.managerAddress,
        requiredGasLimit: 100_000n,
        allowedRelayerAddresses: [],
        receipts: [],
        message: new TextEncoder().encode(text),
      });
      const payload = encodeAddressedCall(TELEPORTER_MESSENGER_V1_ADDRESS, teleporter);
      return bytesToHex(newUnsignedMessage(genesis.networkId, genesis.blockchainId, payload).bytes);
    };
    return {
      genesis,
      node,
      service,
      config,
      info,
      get signerHosts() {
        return supervisors.flatMap((s) => (s.process ? [s.process] : []));
      },
      signerSupervisors: supervisors,
      stopSignerHost: async (index) => {
        const supervisor = supervisors[index];
        if (!supervisor) throw new RangeError(`no signer host ${index}: the devnet has ${supervisors.length}`);
        await supervisor.kill();
      },
      nodeSupervisors,
      stopNodeHost: async (index) => {
        const supervisor = nodeSupervisors[index];
        if (!supervisor) throw new RangeError(`no avalanchego host ${index}: the devnet has ${nodeSupervisors.length}`);
        await supervisor.kill();
      },
      exampleMessageHex,
      exampleTeleporterMessageHex,
      close: cleanup,
    };
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw err;
  }
}
