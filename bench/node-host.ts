// Child-process entry hosting a group of the benchmark's validators as simulated avalanchego
// nodes (`--transport p2p`): real TLS listeners speaking avalanchego's peer protocol, outside the
// service's process, which dials them (the p2p transport is outbound-only). Before timing starts
// each signs every benchmark message (a byzantine one signs other bytes); during the runs a node
// only looks its answer up and waits its injected delay, then answers zstd-compressed as a node does.
import { loadBackend } from '../src/bls/index.js';
import { SimulatedAvalancheNode } from '../src/devnet/avalanchego-node/node.js';
import { loadStakingIdentity } from '../src/p2p/index.js';
import { hexToBytes } from '../src/warp/hex.js';
import { measurementHandlers } from './host-measurement.js';
import { exitIfOrphaned, serveHost } from './ipc.js';
import { messageIndexOf, precomputeSignatures, precomputedSignature } from './precomputed.js';

export interface HostedNodeValidator {
  certPem: string;
  keyPem: string;
  secretKeyHex: string;
  byzantine: boolean;
  /** Injected delay per message index. */
  delaysMs: number[];
}

export interface StartNodesRequest {
  type: 'start-nodes';
  networkId: number;
  chainIdHex: string;
  /** The L1 the nodes validate: each claims it in its Handshake (tracked_subnets), as a node run with --track-subnets does. */
  subnetIdHex: string;
  validators: HostedNodeValidator[];
  messagesHex: string[];
}

/** How many of this host's nodes have finished the handshake with the peer `nodeId` (a service that dialled them). */
export interface ReadyWithRequest {
  type: 'ready-with';
  nodeId: string;
}

export interface StartedNodes {
  nodes: { nodeId: string; port: number }[];
}

const bls = loadBackend('blst');
const running: SimulatedAvalancheNode[] = [];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

serveHost(
  {
    'start-nodes': async (req: StartNodesRequest): Promise<StartedNodes> => {
      const messages = req.messagesHex.map((h) => hexToBytes(h));
      const index = messageIndexOf(req.messagesHex);
      const chainId = hexToBytes(req.chainIdHex);
      const subnetId = hexToBytes(req.subnetIdHex);
      const nodes: StartedNodes['nodes'] = [];
      for (const v of req.validators) {
        exitIfOrphaned();
        const secretKey = hexToBytes(v.secretKeyHex);
        const signatures = precomputeSignatures(bls, bls.secretKeyFromBytes(secretKey), messages, v.byzantine, 'compressed');
        const node = new SimulatedAvalancheNode({
          networkId: req.networkId,
          identity: loadStakingIdentity(v.certPem, v.keyPem),
          blsSecretKey: secretKey,
          bls,
          chains: [{ kind: 'evm', chainId }],
          trackedSubnets: [subnetId],
          host: '127.0.0.1',
          signWith: async (message) => {
            const found = precomputedSignature(index, signatures, message.bytes);
            // Not a benchmark message (none is sent): signed on the spot.
            if (!found) return bls.sign(bls.secretKeyFromBytes(secretKey), message.bytes).bytes;
            const delay = v.delaysMs[found.i] ?? 0;
            if (delay > 0) await sleep(delay);
            return found.signature;
          },
        });
        running.push(node);
        const { port } = await node.start();
        nodes.push({ nodeId: node.nodeId, port });
      }
      return { nodes };
    },
    'ready-with': async (req: ReadyWithRequest): Promise<number> => running.filter((n) => n.isReadyWith(req.nodeId)).length,
    ...measurementHandlers(),
    // The service closes its connections when it stops; the nodes stay for the next strategy.
    disconnect: async () => ({ running: running.length }),
  },
  async () => {
    await Promise.allSettled(running.splice(0).map((n) => n.close()));
  },
);
