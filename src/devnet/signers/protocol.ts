// The IPC messages between the devnet and a signer host process (host.ts): the parent sends one
// `start`, the host answers `ready` with each signer's public key and port, or `failed`; a
// `stop` (or SIGTERM, or the parent going away) closes it.
import type { FaultMode } from '../../signer/index.js';

export interface HostedSigner {
  secretKeyHex: string;
  fault?: FaultMode;
  /** Wait this long before answering each request (tests of slow signers, e.g. graceful shutdown). */
  answerDelayMs?: number;
  /** Listen on this port (a restart reuses its predecessor's); absent: any free port. */
  port?: number;
}

export interface SignerHostStart {
  type: 'start';
  signers: HostedSigner[];
  networkId: number;
  allowedSourceChainsHex: string[];
  backend: 'blst' | 'noble';
  /** The simulated node: P-Chain messages are signed only when its state makes them true. */
  pchainUrl?: string;
}

export interface SignerHostReady {
  type: 'ready';
  signers: { publicKeyHex: string; port: number }[];
}
