// The validator-side signer: its peer, signing backends and policies.
export { DEFAULT_MAX_CONNECTIONS, SignerPeer, type SignerPeerOptions } from './peer.js';
export type { SignOutcome, SigningBackend, SigningPolicy, Verdict } from './types.js';
export { KeyFileBackend, SignerKeyError, readSignerKey, secretKeyFromFile, SIGNER_KEY_BYTES } from './key-file.js';
export { NodeBackend } from './node-backend.js';
export { AllPolicies, NodeConfirmedPolicy, PolicyError, StaticPolicy, decideWith } from './policy.js';
export { CachedPolicy, DEFAULT_VERDICT_CACHE, type VerdictCacheOptions } from './verdict-cache.js';
export { DEFAULT_INBOUND_LIMITS, DEFAULT_REQUEST_LIMITS, type InboundLimits, type RequestLimits } from './limits.js';
export { PChainPolicy, type PChainPolicyOptions } from './pchain-policy.js';
export { parsePolicy, policyFromConfig, readPolicyFile, type PolicyConfig } from './policy-file.js';
export { FAULT_MODES, isFaultMode, type FaultMode } from './faults.js';
