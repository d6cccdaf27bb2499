// A bench-only P-Chain: the devnet's genesis always has its own uneven weights, a shared key and
// a weight change, so it cannot give the benchmark an exactly uniform or exactly chosen set. This
// serves only what the service asks during a benchmark (platform.getHeight, getProposedHeight,
// getCurrentValidators, getValidatorsAt, validatedBy) for the scenario's one L1, and info
// (getNetworkID, and peers: where the simulated avalanchego validators of --transport p2p listen),
// through the devnet's avalanchego-faithful JSON-RPC layer. Its set is the same at every height.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcError } from '../src/devnet/pchain/json-rpc-errors.js';
import { serveJsonRpc, serviceMap, type JsonRpcService } from '../src/devnet/pchain/json-rpc-server.js';
import { bytesEqual } from '../src/warp/hex.js';
import { cb58Encode } from '../src/warp/cb58.js';
import { BENCH_NETWORK_ID, type Scenario } from './scenario.js';

export const STUB_HEIGHT = 1000;

export interface PChainStub {
  url: string;
  /** What info.peers lists from now on. */
  setPeers(peers: readonly { nodeId: string; port: number }[]): void;
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

function platform(scenario: Scenario): JsonRpcService {
  const subnet = cb58Encode(scenario.subnetId);
  // Built once: the service re-reads the current set every few seconds, and the bench process
  // that answers also times the HTTP requests, so answering must stay cheap.
  const current = {
    validators: scenario.validators.map((v) => ({
      nodeID: v.nodeId,
      weight: v.weight.toString(),
      publicKey: `0x${v.publicKeyHex}`,
      balance: '1000000000',
    })),
  };
  const atHeight = Object.fromEntries(scenario.validators.map((v) => [v.nodeId, { publicKey: `0x${v.publicKeyHex}`, weight: v.weight.toString() }]));
  const checkSubnet = (id: Uint8Array | undefined): void => {
    if (!id || !bytesEqual(id, scenario.subnetId)) throw new JsonRpcError(`this bench P-Chain only knows subnet ${subnet}`);
  };
  return {
    name: 'platform',
    methods: {
      getHeight: () => ({ height: String(STUB_HEIGHT) }),
      getProposedHeight: () => ({ height: String(STUB_HEIGHT) }),
      getCurrentValidators: (args) => {
        checkSubnet(args.id('subnetID'));
        return current;
      },
      getValidatorsAt: (args) => {
        checkSubnet(args.id('subnetID'));
        return atHeight;
      },
      validatedBy: (args) => {
        const chain = args.id('blockchainID');
        if (!chain || !bytesEqual(chain, scenario.blockchainId)) throw new JsonRpcError('not found');
        return { subnetID: subnet };
      },
    },
  };
}

export async function startPChainStub(scenario: Scenario): Promise<PChainStub> {
  const services = serviceMap(platform(scenario));
  let peers: readonly { nodeId: string; port: number }[] = [];
  const infoServices = serviceMap(info(() => peers));
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const served = path === '/ext/bc/P' ? services : path === '/ext/info' ? infoServices : undefined;
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
