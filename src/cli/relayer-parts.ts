// The relayer's real parts, as `warpgate relay` and `warpgate serve` give them to the service.
//
// PLACEHOLDER FOR THE MERGE (issue 37): the engine (relayer/engine.ts, createRelayer), the
// embedded store and LocalLeases (relayer/store/, branch core), the Redis store and leases
// (issue 38, branch redis) and the EVM adapters (relayer/evm/, createEvmSource and
// createEvmDestination, branch evm) are written in parallel. When they land, this file imports
// them and each function below returns the real part; until then a config with relayer.routes
// fails at start with this message, and everything else runs as before.
import type { MessageDestination, MessageSource } from '../relayer/ports.js';
import type { DestinationOptions, RelayerChain, RelayerDeps, RelayerParts, RunningRelayer, SourceOptions } from '../service/relayer.js';

function notInThisBuild(part: string): never {
  throw new Error(`the relayer's ${part} is not in this build yet (issue 37: merged from its branch); run without relayer.routes`);
}

export const RELAYER_PARTS: RelayerParts = {
  createRelayer: (_deps: RelayerDeps): RunningRelayer => notInThisBuild('engine (relayer/engine.ts)'),
  createSource: (_chain: RelayerChain, _options: SourceOptions): MessageSource => notInThisBuild('EVM source (relayer/evm)'),
  createDestination: (_chain: RelayerChain, _options: DestinationOptions): MessageDestination => notInThisBuild('EVM destination (relayer/evm)'),
  openStore: () => notInThisBuild('store (relayer/store)'),
  leases: () => notInThisBuild('route leases (relayer/store)'),
};
