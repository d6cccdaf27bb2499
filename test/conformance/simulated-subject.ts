// The devnet's simulated avalanchego node as a conformance subject: configured as the devnet's
// node host configures it (src/devnet/avalanchego-node/host.ts: its EVM chain and the P-Chain
// with avalanchego's P-Chain verifier), over an in-memory P-Chain state that holds one L1, as
// the real interop network does: a converted subnet and its validator at index 0.
import { randomBytes } from 'node:crypto';
import { loadBackend } from '../../src/bls/index.js';
import { SimulatedAvalancheNode } from '../../src/devnet/avalanchego-node/node.js';
import { pchainWarpVerifier, type PChainReader } from '../../src/devnet/avalanchego-node/pchain-verifier.js';
import { bytesToHex, P_CHAIN_ID, validationIdFromIndex } from '../../src/warp/index.js';
import type { ConformanceSubject } from './cases.js';

export const SIMULATED_NETWORK_ID = 12345;

/** A P-Chain state in memory: one converted subnet with one validator. */
export function memoryPChain(subnetId: Uint8Array, conversionId: Uint8Array, validator: { weight: bigint; minNonce: bigint }): PChainReader {
  const validationId = bytesToHex(validationIdFromIndex(subnetId, 0));
  return {
    conversionIdOf: async (s) => (bytesToHex(s) === bytesToHex(subnetId) ? conversionId : undefined),
    l1Validator: async (v) => (bytesToHex(v) === validationId ? validator : undefined),
    timestamp: async () => BigInt(Math.floor(Date.now() / 1000)),
  };
}

export async function startSimulatedSubject(): Promise<{ subject: ConformanceSubject; node: SimulatedAvalancheNode }> {
  const subnetId = randomBytes(32);
  const conversionId = randomBytes(32);
  const evmChainId = randomBytes(32);
  const minNonce = 0n;
  const node = new SimulatedAvalancheNode({
    networkId: SIMULATED_NETWORK_ID,
    bls: loadBackend(),
    chains: [
      { kind: 'evm', chainId: evmChainId },
      { kind: 'pchain', chainId: P_CHAIN_ID, verify: pchainWarpVerifier(memoryPChain(subnetId, conversionId, { weight: 40n, minNonce })) },
    ],
    host: '127.0.0.1',
    trackedSubnets: [subnetId],
  });
  const { host, port } = await node.start();
  const target = { nodeId: node.nodeId, host, port, networkId: SIMULATED_NETWORK_ID, blsPublicKey: node.blsPublicKey };
  return {
    node,
    subject: {
      networkId: SIMULATED_NETWORK_ID,
      pchainNode: target,
      evmNode: target,
      evmChainId,
      acceptedBlockHash: randomBytes(32),
      subnetId,
      conversionId,
      minNonce,
    },
  };
}
