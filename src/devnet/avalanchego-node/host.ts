// Child-process entry that hosts a group of the devnet's simulated avalanchego validators, so
// their TLS and BLS work is not on the service's event loop. The parent sends one `start` message
// over IPC and receives each node's NodeID and port (or a `failed` message, and the process exits
// 1); SIGTERM, a `stop` message or losing the parent closes them and exits 0 (host-serve.ts). A restarted host is
// given the ports of the one before it, which the service keeps redialling.
import { loadBackend } from '../../bls/index.js';
import { PChainClient } from '../../node/pchain.js';
import { loadStakingIdentity } from '../../p2p/index.js';
import { hexToBytes } from '../../warp/hex.js';
import { P_CHAIN_ID } from '../../warp/cb58.js';
import { SimulatedAvalancheNode } from './node.js';
import { pchainWarpVerifier, rpcPChainReader } from './pchain-verifier.js';
import type { NodeHostReady, NodeHostStart } from './protocol.js';
import { serveHost, type Closable } from '../host-serve.js';

async function startNodes(msg: NodeHostStart, running: Closable[]): Promise<NodeHostReady> {
  const bls = loadBackend(msg.backend);
  const verify = pchainWarpVerifier(rpcPChainReader(new PChainClient({ nodeBaseUrl: msg.pchainUrl })));
  const evmChainId = hexToBytes(msg.evmChainIdHex);
  const ready: NodeHostReady['nodes'] = [];
  for (const n of msg.nodes) {
    const node = new SimulatedAvalancheNode({
      networkId: msg.networkId,
      identity: loadStakingIdentity(n.certPem, n.keyPem),
      blsSecretKey: hexToBytes(n.secretKeyHex),
      bls,
      chains: [
        { kind: 'evm', chainId: evmChainId },
        { kind: 'pchain', chainId: P_CHAIN_ID, verify },
      ],
      host: '127.0.0.1',
      port: n.port ?? 0,
      trackedSubnets: (msg.trackedSubnetIdsHex ?? []).map((h) => hexToBytes(h)),
      ...(n.fault ? { fault: n.fault } : {}),
    });
    running.push(node);
    const { port } = await node.start();
    ready.push({ nodeId: node.nodeId, port });
  }
  return { type: 'ready', nodes: ready };
}

serveHost(startNodes);
