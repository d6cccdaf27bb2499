// The IPC messages between the devnet and an avalanchego host process (host.ts): the parent sends
// one `start`, the host answers `ready` with each node's NodeID and port, or `failed`; a `stop`
// (or SIGTERM, or the parent going away) closes it.
import type { FaultMode } from '../../signer/faults.js';

export interface HostedNode {
  /** Staking certificate and key (PEM): the node's NodeID. */
  certPem: string;
  keyPem: string;
  /** Its BLS key (signer.key bytes, hex). */
  secretKeyHex: string;
  fault?: FaultMode;
  /** Listen on this port (a restart reuses its predecessor's); absent: any free port. */
  port?: number;
}

export interface NodeHostStart {
  type: 'start';
  nodes: HostedNode[];
  networkId: number;
  /** The L1's EVM chain, the chain every node runs besides the P-Chain. */
  evmChainIdHex: string;
  /** The subnets every node tracks (the L1's), claimed in its Handshake, hex. */
  trackedSubnetIdsHex?: string[];
  /** The simulated P-Chain node: the P-Chain verifier reads its state there. */
  pchainUrl: string;
  backend: 'blst' | 'noble';
}

export interface NodeHostReady {
  type: 'ready';
  nodes: { nodeId: string; port: number }[];
}
