// A small world for the p2p integration tests, all real and on 127.0.0.1: a genesis whose
// validators are avalanchego nodes (staking certificates, NodeIDs from them), the simulated
// P-Chain node serving it (its info.peers lists whom the test says), a simulated avalanchego node
// per validator over real TLS (P-Chain verifier wired to that node's state), optional WebSocket
// signers for chosen validators, and the service under test. Everything is closed by closeWorld().
import { pino, type Logger } from 'pino';
import { loadBackend } from '../../src/bls/index.js';
import { loadConfig } from '../../src/config/config.js';
import { buildGenesis, type DevnetGenesis } from '../../src/devnet/genesis/index.js';
import { SimulatedAvalancheNode } from '../../src/devnet/avalanchego-node/node.js';
import { pchainWarpVerifier, rpcPChainReader } from '../../src/devnet/avalanchego-node/pchain-verifier.js';
import type { InfoPeer } from '../../src/devnet/pchain/info-service.js';
import { startPChainNode, type SimulatedNode } from '../../src/devnet/pchain/node.js';
import { PChainClient } from '../../src/node/pchain.js';
import { formatVersion, loadStakingIdentity, type ClaimedIpPort, type ClientVersion } from '../../src/p2p/index.js';
import { l1MessageBuilder } from '../../src/service/l1-builder.js';
import { startService, type Service } from '../../src/service/start.js';
import { KeyFileBackend, SignerPeer, StaticPolicy, type FaultMode } from '../../src/signer/index.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import { idToString, P_CHAIN_ID } from '../../src/warp/cb58.js';
import { bytesToHex, hexToBytes } from '../../src/warp/hex.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { newUnsignedMessage, type UnsignedMessage } from '../../src/warp/unsigned-message.js';
import { CapturedLog } from '../ops/helpers.js';

export const bls = loadBackend('blst');

export interface World {
  genesis: DevnetGenesis;
  pchain: SimulatedNode;
  nodes: SimulatedAvalancheNode[];
  /** What the P-Chain node's info.peers lists now (tests change it). */
  listed: InfoPeer[];
  /** WebSocket signers by validator index, with the port each listens on. */
  signers: Map<number, { peer: SignerPeer; port: number }>;
  service: Service;
  log: CapturedLog;
  logger: Logger;
}

interface WorldOptions {
  validators?: number;
  seed?: string;
  /** Faults by validator index. */
  faults?: Record<number, FaultMode>;
  /** The honest nodes sign only once this settles: a test orders their answers after what the faulty ones do. */
  signAfter?: Promise<unknown>;
  /** Which nodes info.peers lists (by index); default all. */
  listed?: (index: number) => boolean;
  /** EVM messages the simulated nodes know as accepted yet (AppError 4 until then); default all. */
  evmAccepted?: (message: UnsignedMessage) => boolean;
  /** The version every node runs and requires of its peers (and info.getNodeVersion says); default the simulated node's own. */
  nodeVersion?: ClientVersion;
  /** Which chains a node runs (by index): both (default), only the P-Chain, or none (it drops every request, as avalanchego does for a chain it does not run). */
  runs?: (index: number) => 'both' | 'pchain' | 'none';
  /** Validators (by index) whose address goes into p2p.peers. */
  configured?: number[];
  /** Node `from` gossips the others in its PeerList (sent with its Handshake and on GetPeerList). */
  gossipFrom?: number;
  /** Validators (by index) that also run a WebSocket signer the service dials. */
  signers?: number[];
  overrides?: Record<string, unknown>;
  /** Start the service (default true). */
  withService?: boolean;
}

const open: (() => Promise<unknown>)[] = [];

export async function closeWorld(): Promise<void> {
  for (const close of open.splice(0).reverse()) await close().catch(() => undefined);
}

export function infoPeer(node: SimulatedAvalancheNode): InfoPeer {
  return { nodeId: node.nodeId, ...node.address };
}

/** A node's own signature, made once `gate` settles. */
function signAfter(gate: Promise<unknown>, secretKey: Uint8Array): (message: UnsignedMessage) => Promise<Uint8Array> {
  const sk = bls.secretKeyFromBytes(secretKey);
  return async (message) => {
    await gate;
    return bls.sign(sk, message.bytes).bytes;
  };
}

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const genesis = buildGenesis({ validators: opts.validators ?? 4, seed: opts.seed ?? 'p2p-world', avalanchegoNodes: () => true });
  const world = { genesis, listed: [] as InfoPeer[], nodes: [] as SimulatedAvalancheNode[], signers: new Map<number, { peer: SignerPeer; port: number }>() } as unknown as World;
  world.pchain = await startPChainNode({ genesis, peers: () => world.listed, ...(opts.nodeVersion ? { nodeVersion: formatVersion(opts.nodeVersion) } : {}) });
  open.push(() => world.pchain.close());
  const verify = pchainWarpVerifier(rpcPChainReader(new PChainClient({ nodeBaseUrl: world.pchain.url })));
  let gossip: ClaimedIpPort[] = [];
  for (const v of genesis.validators) {
    const fault = opts.faults?.[v.index];
    const node = new SimulatedAvalancheNode({
      networkId: genesis.networkId,
      identity: loadStakingIdentity(v.staking!.certPem, v.staking!.keyPem),
      blsSecretKey: v.secretKey,
      bls,
      chains: [
        { kind: 'evm' as const, chainId: genesis.blockchainId },
        { kind: 'pchain' as const, chainId: P_CHAIN_ID, verify },
      ].filter((c) => ({ both: true, pchain: c.kind === 'pchain', none: false })[opts.runs?.(v.index) ?? 'both']),
      limits: { pingIntervalMs: 60_000, silenceTimeoutMs: 120_000 },
      // The others validate the L1 only: a node gossips them to a peer that tracks the L1 (network.go Peers).
      ...(v.index === opts.gossipFrom ? { peerList: (tracked: readonly Uint8Array[]) => (tracked.some((s) => bytesToHex(s) === bytesToHex(genesis.subnetId)) ? gossip : []) } : {}),
      ...(fault ? { fault } : {}),
      ...(opts.evmAccepted ? { evmAccepted: opts.evmAccepted } : {}),
      ...(opts.nodeVersion ? { version: opts.nodeVersion, minCompatible: opts.nodeVersion } : {}),
      ...(opts.signAfter && !fault ? { signWith: signAfter(opts.signAfter, v.secretKey) } : {}),
    });
    await node.start();
    open.push(() => node.close());
    world.nodes.push(node);
  }
  gossip = world.nodes.filter((_, i) => i !== opts.gossipFrom).map((n) => n.claimedIpPort());
  world.listed = world.nodes.filter((_, i) => (opts.listed ? opts.listed(i) : true)).map(infoPeer);

  const policy = new StaticPolicy({ networkId: genesis.networkId, allowedSourceChains: [genesis.blockchainId] });
  for (const i of opts.signers ?? []) {
    const sk = bls.secretKeyFromBytes(genesis.validators[i]!.secretKey);
    const peer = new SignerPeer({ secretKey: sk, bls, backend: new KeyFileBackend(sk, bls, policy), listen: { port: 0, host: '127.0.0.1' } });
    const { port } = await peer.start();
    open.push(() => peer.close());
    world.signers.set(i, { peer, port: port! });
  }

  world.log = new CapturedLog();
  world.logger = pino({ level: 'debug' }, world.log);
  if (opts.withService !== false) world.service = await startWorldService(world, opts);
  return world;
}

/** The service of `world`, configured as startWorld was asked. */
export async function startWorldService(world: World, opts: WorldOptions = {}, nodeUrl = world.pchain.url): Promise<Service> {
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      'workers.threads': 1,
      'upstreams.node': nodeUrl,
      localNetworkId: world.genesis.networkId,
      'readiness.subnets': [idToString(world.genesis.subnetId)],
      'rateLimit.aggregationsPerMinute': 0,
      'p2p.peers': (opts.configured ?? []).map((i) => ({ nodeId: world.nodes[i]!.nodeId, address: `127.0.0.1:${world.nodes[i]!.address.port}` })),
      peers: [...world.signers.values()].map((s) => ({ url: `ws://127.0.0.1:${s.port}` })),
      ...opts.overrides,
    },
  });
  const service = await startService(config, { logger: world.logger, l1: l1MessageBuilder });
  open.push(() => service.close());
  return service;
}

/** An unsigned message from the world's EVM chain (hex): every honest validator signs it. */
export function messageHex(world: World, text: string): string {
  const { genesis } = world;
  return bytesToHex(newUnsignedMessage(genesis.networkId, genesis.blockchainId, encodeAddressedCall(genesis.managerAddress, new TextEncoder().encode(text))).bytes);
}

/** Resolves when `check` holds, polling; rejects after a generous deadline. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function aggregate(service: Service, messageHex: string, extra: Record<string, unknown> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${service.url}/v1/signatureAggregator/fuji/aggregateSignatures`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: messageHex, ...extra }),
    signal: AbortSignal.timeout(25_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Checks a signed message as a relayer's destination chain would, from the P-Chain node's current set. */
export async function verifiesIndependently(world: World, signedHex: unknown, quorum = 67): Promise<{ signers: number }> {
  const entries = await new PChainClient({ nodeBaseUrl: world.pchain.url }).getCurrentValidators(world.genesis.subnetId);
  const v = verifySignedMessage(hexToBytes(signedHex as string), entries, quorum, world.genesis.networkId, createNobleBackend());
  if (!v.valid) throw new Error(`the signed message does not verify: ${v.reason}`);
  return { signers: v.signers.length };
}
