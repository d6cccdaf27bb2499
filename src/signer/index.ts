// The validator-side signer: its peer, signing backends and policies.
export { SignerPeer, type SignerPeerOptions } from './peer.js';
export type { SignOutcome, SigningBackend, SigningPolicy } from './types.js';
export { KeyFileBackend, SignerKeyError, readSignerKey, secretKeyFromFile, SIGNER_KEY_BYTES } from './key-file.js';
export { NodeBackend } from './node-backend.js';
export { AllPolicies, NodeConfirmedPolicy, PolicyError, StaticPolicy } from './policy.js';
export { PChainPolicy, type PChainPolicyOptions } from './pchain-policy.js';
export { parsePolicy, policyFromConfig, readPolicyFile, type PolicyConfig } from './policy-file.js';
export { FAULT_MODES, isFaultMode, type FaultMode } from './faults.js';
export { NodeRpcError } from './node-rpc.js';
