// Starting one signer host process (host.ts) for a group of devnet signers: fork it, send the
// signers and the network they sign for, and wait for its ready message, within a deadline.
// A host that fails, exits or stalls first is killed before the error is thrown.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { packagePath, tsExecArgv } from '../../util/ts-runtime.js';
import { bytesToHex } from '../../warp/hex.js';
import type { DevnetGenesis } from '../genesis/index.js';
import type { HostedSigner, SignerHostFailed, SignerHostReady, SignerHostStart } from './protocol.js';

/** Longest a signer host may take to start its signers. */
const HOST_READY_TIMEOUT_MS = 120_000;

export async function startSignerHost(signers: HostedSigner[], genesis: DevnetGenesis, backend: 'blst' | 'noble', pchainUrl: string): Promise<{ child: ChildProcess; ready: SignerHostReady }> {
  const child = fork(packagePath('src/devnet/signers/host.ts'), [], { execArgv: tsExecArgv(), stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const start: SignerHostStart = {
    type: 'start',
    signers,
    networkId: genesis.networkId,
    allowedSourceChainsHex: [bytesToHex(genesis.blockchainId)],
    backend,
    pchainUrl,
  };
  child.send(start);
  let timer: NodeJS.Timeout | undefined;
  try {
    const [msg] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code, signal]) => {
        throw new Error(`devnet signer host exited (${String(code ?? signal)}) before it was ready`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`devnet signer host was not ready within ${HOST_READY_TIMEOUT_MS} ms`)), HOST_READY_TIMEOUT_MS);
      }),
    ])) as [SignerHostReady | SignerHostFailed];
    if (msg.type === 'failed') throw new Error(`devnet signer host could not start its signers: ${msg.reason}`);
    return { child, ready: msg };
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
