// The package's public API: what `import { … } from 'warpgate'` offers, and all it offers (the
// package's `exports` map names this module alone; everything else under dist/ is internal and
// may change in any release). Its declarations are dist/index.d.ts.
//
// - Run the service in a process of your own: startService(loadConfig(…), { l1: l1MessageBuilder }),
//   or a whole local network for integration tests: startDevnet().
// - Aggregate from code: the running service's `aggregator` (Aggregator.aggregate) and its errors.
// - Bring another signer transport: implement PeerSource (its `ask` can wrap a Promise-returning
//   request function with askViaPromise).
// - Read, build and check Warp messages: the byte formats (warp/) and verifySignedMessage.
export { startService, type Service, type ServiceOptions } from './service/start.js';
export { l1MessageBuilder } from './service/l1-builder.js';
export { loadConfig, ConfigError, type Config } from './config/config.js';
export { startDevnet, type Devnet } from './devnet/devnet.js';
export { Aggregator, type AggregationRequest, type AggregationResult, type AggregatorOptions, type ValidatorSets } from './aggregator/aggregator.js';
export { QuorumNotReachedError, DeadlineExceededError, NoSigningValidatorsError, type CollectionStats } from './aggregator/errors.js';
export { askViaPromise, type PeerSource, type PeerAnswer, type SignatureRequest, type AskDone, type AskTicket, type CancelWhy } from './aggregator/peer-source.js';
export { verifySignedMessage, type VerifyResult } from './validators/verify.js';
export { canonicalSet, type CanonicalSet, type ValidatorEntry } from './validators/canonical-set.js';
export { loadBackend, type BlsBackend, type BackendName } from './bls/index.js';
export * from './warp/index.js';
