// Starting one signer host process (host.ts) for a group of devnet signers: the signers and the
// network they sign for go in its start message (host-launch.ts forks it and waits for it).
import type { ChildProcess } from 'node:child_process';
import { bytesToHex } from '../../warp/hex.js';
import type { DevnetGenesis } from '../genesis/index.js';
import { launchHost } from '../host-launch.js';
import type { HostedSigner, SignerHostReady, SignerHostStart } from './protocol.js';

export function startSignerHost(signers: HostedSigner[], genesis: DevnetGenesis, backend: 'blst' | 'noble', pchainUrl: string): Promise<{ child: ChildProcess; ready: SignerHostReady }> {
  const start: SignerHostStart = {
    type: 'start',
    signers,
    networkId: genesis.networkId,
    allowedSourceChainsHex: [bytesToHex(genesis.blockchainId)],
    backend,
    pchainUrl,
  };
  return launchHost<SignerHostReady>('src/devnet/signers/host.ts', start, 'signer');
}
