// A bench-only P-Chain: the devnet's genesis always has its own uneven weights, a shared key and
// a weight change, so it cannot give the benchmark an exactly uniform or exactly chosen set. This
// serves what a service asks during a benchmark for the scenario's one L1, through the devnet's
// avalanchego-faithful JSON-RPC layer, with avalanchego's result shapes (vms/platformvm/service.go):
// platform.getHeight, getProposedHeight, getCurrentValidators, getValidatorsAt, getAllValidatorsAt,
// validatedBy, getSubnet; and info (getNetworkID, and peers: where the simulated avalanchego
// validators of --transport p2p listen). Its sets are the same at every height.
//
// The model: the scenario's validators are the L1's initial validators (a ConvertSubnetToL1Tx's,
// so their validation IDs are sha256(subnetID ‖ index) and the subnet has a conversion ID), and the
// same nodes, with the same keys and weights, validate the primary network, as on a devnet whose
// nodes validate both. A client that bootstraps from primary-network validators found in
// info.peers (icm-services) finds them there; one that reads only the L1 (warpgate) sees no change.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadBackend } from '../src/bls/index.js';
import { JsonRpcError } from '../src/devnet/pchain/json-rpc-errors.js';
import { serveJsonRpc, serviceMap, type JsonRpcService } from '../src/devnet/pchain/json-rpc-server.js';
import { canonicalSet } from '../src/validators/canonical-set.js';
import { conversionId, validationIdFromIndex } from '../src/warp/l1-messages.js';
import { bytesEqual, hexToBytes } from '../src/warp/hex.js';
import { cb58Encode, parseNodeId, PRIMARY_NETWORK_ID } from '../src/warp/cb58.js';
import { BENCH_NETWORK_ID, type Scenario } from './scenario.js';

export const STUB_HEIGHT = 1000;
/** The L1 validators' start time (unix seconds): any fixed time before now. */
const START_TIME = '1700000000';
/** Far enough ahead that no primary-network validation ends during a run. */
const END_TIME = '4102444800';
const EMPTY_ID = cb58Encode(new Uint8Array(32));
/** The validator manager's address on the L1's chain (the bench has no contract there). */
const MANAGER_ADDRESS = new Uint8Array(20);

export interface PChainStub {
  url: string;
  /** What info.peers lists from now on. */
  setPeers(peers: readonly { nodeId: string; port: number }[]): void;
  peers(): readonly { nodeId: string; port: number }[];
  close(): Promise<void>;
}

function info(peers: () => readonly { nodeId: string; port: number }[]): JsonRpcService {
  return {
    name: 'info',
    methods: {
      getNetworkID: () => ({ networkID: String(BENCH_NETWORK_ID) }),
      peers: () => {
        const listed = peers().map((p) => ({ ip: '127.0.0.1:1', publicIP: `127.0.0.1:${p.port}`, nodeID: p.nodeId }));
        return { numPeers: String(listed.length), peers: listed };
      },
    },
  };
}

/** Go marshals maps with their keys sorted. */
function sortedObject<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function platform(scenario: Scenario): JsonRpcService {
  const subnet = cb58Encode(scenario.subnetId);
  const isL1 = (id: Uint8Array): boolean => bytesEqual(id, scenario.subnetId);
  const isPrimary = (id: Uint8Array): boolean => bytesEqual(id, PRIMARY_NETWORK_ID);
  const conversion = cb58Encode(
    conversionId({
      subnetId: scenario.subnetId,
      managerChainId: scenario.blockchainId,
      managerAddress: MANAGER_ADDRESS,
      validators: scenario.validators.map((v) => ({ nodeId: parseNodeId(v.nodeId), blsPublicKey: hexToBytes(v.publicKeyHex), weight: v.weight })),
    }),
  );
  // Built once: the service re-reads the current set every few seconds, and the bench process
  // that answers also times the HTTP requests, so answering must stay cheap.
  const l1Validators = {
    validators: scenario.validators.map((v, i) => ({
      nodeID: v.nodeId,
      weight: v.weight.toString(),
      startTime: START_TIME,
      validationID: cb58Encode(validationIdFromIndex(scenario.subnetId, i)),
      publicKey: `0x${v.publicKeyHex}`,
      minNonce: '0',
      balance: '1000000000',
    })),
  };
  const primaryValidators = {
    validators: scenario.validators.map((v, i) => ({
      txID: cb58Encode(validationIdFromIndex(PRIMARY_NETWORK_ID, i)),
      startTime: START_TIME,
      endTime: END_TIME,
      weight: v.weight.toString(),
      nodeID: v.nodeId,
      connected: true,
      uptime: '100.0000',
      signer: { publicKey: `0x${v.publicKeyHex}` },
      delegatorCount: '0',
      delegatorWeight: '0',
    })),
  };
  const atHeight = sortedObject(scenario.validators.map((v) => [v.nodeId, { publicKey: `0x${v.publicKeyHex}`, weight: v.weight.toString() }]));
  const canonical = canonicalSet(
    scenario.validators.map((v) => ({ nodeId: v.nodeId, weight: v.weight, publicKey: hexToBytes(v.publicKeyHex) })),
    loadBackend('blst'),
  );
  const warpSet = {
    validators: canonical.validators.map((v) => ({ publicKey: `0x${v.publicKeyHex}`, weight: v.weight.toString(), nodeIDs: [...v.nodeIds].sort() })),
    totalWeight: canonical.totalWeight.toString(),
  };
  const allSets = { validatorSets: sortedObject([[cb58Encode(PRIMARY_NETWORK_ID), warpSet], [subnet, warpSet]]) };
  return {
    name: 'platform',
    methods: {
      getHeight: () => ({ height: String(STUB_HEIGHT) }),
      getProposedHeight: () => ({ height: String(STUB_HEIGHT) }),
      // avalanchego: a subnet with no validators answers an empty list, not an error.
      getCurrentValidators: (args) => {
        const id = args.id('subnetID') ?? PRIMARY_NETWORK_ID;
        return isL1(id) ? l1Validators : isPrimary(id) ? primaryValidators : { validators: [] };
      },
      getValidatorsAt: (args) => {
        const id = args.id('subnetID') ?? PRIMARY_NETWORK_ID;
        return isL1(id) || isPrimary(id) ? atHeight : {};
      },
      getAllValidatorsAt: () => allSets,
      validatedBy: (args) => {
        const chain = args.id('blockchainID');
        if (!chain || !bytesEqual(chain, scenario.blockchainId)) throw new JsonRpcError('not found');
        return { subnetID: subnet };
      },
      getSubnet: (args) => {
        const id = args.id('subnetID') ?? PRIMARY_NETWORK_ID;
        if (isPrimary(id)) throw new JsonRpcError("the primary network isn't a subnet");
        if (!isL1(id)) throw new JsonRpcError('not found');
        return {
          isPermissioned: false,
          controlKeys: [],
          threshold: '0',
          locktime: '0',
          subnetTransformationTxID: EMPTY_ID,
          conversionID: conversion,
          managerChainID: cb58Encode(scenario.blockchainId),
          managerAddress: '0x' + '00'.repeat(MANAGER_ADDRESS.length),
        };
      },
    },
  };
}

/** Every path avalanchego serves the P-Chain at: avalanchego's own Go client (platformvm.NewClient) posts to /ext/P. */
const P_CHAIN_PATHS = new Set(['/ext/bc/P', '/ext/P', `/ext/bc/${cb58Encode(PRIMARY_NETWORK_ID)}`]);

export async function startPChainStub(scenario: Scenario): Promise<PChainStub> {
  const services = serviceMap(platform(scenario));
  let peers: readonly { nodeId: string; port: number }[] = [];
  const infoServices = serviceMap(info(() => peers));
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const served = P_CHAIN_PATHS.has(path ?? '') ? services : path === '/ext/info' ? infoServices : undefined;
    if (!served) {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    serveJsonRpc(req, res, served).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setPeers: (list) => {
      peers = list;
    },
    peers: () => peers,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
