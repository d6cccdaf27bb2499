// Where the interop harness lives, and the network description `interop network` prints
// (interop/cmd/interop/describe.go).
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const BUILD_DIR = `${REPO}/interop/.build`;
export const INTEROP_BIN = `${BUILD_DIR}/interop`;
export const CONTRACTS_DIR = `${BUILD_DIR}/contracts`;
export const NETWORK_ROOT = process.env.WARPGATE_INTEROP_ROOT ?? `${REPO}/interop/.networks`;

export interface FundedKey {
  privateKey: `0x${string}`;
  address: `0x${string}`;
}

export interface NetworkDescription {
  networkId: number;
  networkDir: string;
  nodes: { nodeId: string; uri: string; stakingAddress: string }[];
  cChain: { blockchainId: string; evmChainId: number; rpcUrl: string; wsUrl: string };
  pChainUrl: string;
  l1: {
    subnetId: string;
    blockchainId: string;
    evmChainId: number;
    rpcUrl: string;
    wsUrl: string;
    validators: { nodeId: string; uri: string; stakingAddress: string; weight: number; validationId: string }[];
    conversionTxId: string;
    manager: FundedKey;
  };
  funded: FundedKey[];
  pChainFundedKey: string;
  /** Our Teleporter-v1-compatible messenger per chain (blockchain ID, cb58): the same address on both. */
  teleporter: Record<string, `0x${string}`>;
  /** The test receiver (interop/contracts/ReceiverForTests.sol) per chain. */
  receivers: Record<string, `0x${string}`>;
  /** A `warpgate relay` configuration relaying Teleporter both ways, paying with funded[0]. */
  relayerConfig: string;
  startSeconds: number;
}
