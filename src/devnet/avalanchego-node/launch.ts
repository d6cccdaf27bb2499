// Starting one avalanchego host process (host.ts) for a group of the devnet's simulated
// avalanchego validators (host-launch.ts forks it and waits for it).
import type { ChildProcess } from 'node:child_process';
import { bytesToHex } from '../../warp/hex.js';
import type { DevnetGenesis } from '../genesis/index.js';
import { launchHost } from '../host-launch.js';
import type { HostedNode, NodeHostReady, NodeHostStart } from './protocol.js';

export function startNodeHost(nodes: HostedNode[], genesis: DevnetGenesis, backend: 'blst' | 'noble', pchainUrl: string): Promise<{ child: ChildProcess; ready: NodeHostReady }> {
  const start: NodeHostStart = { type: 'start', nodes, networkId: genesis.networkId, evmChainIdHex: bytesToHex(genesis.blockchainId), trackedSubnetIdsHex: [bytesToHex(genesis.subnetId)], pchainUrl, backend };
  return launchHost<NodeHostReady>('src/devnet/avalanchego-node/host.ts', start, 'avalanchego');
}
