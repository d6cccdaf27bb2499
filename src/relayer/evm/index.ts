// The relayer's EVM side over viem: where Teleporter messages come from (a source chain's
// SendWarpMessage logs) and how they are delivered (receiveCrossChainMessage with the signed
// message as the Warp predicate). docs/relayer.md says how gas, keys and fees are handled.
export { createEvmSource, type EvmSourceOptions } from './source.js';
export { createEvmDestination, type EvmDestination, type EvmDestinationOptions, type LowBalance } from './destination.js';
export { EvmChainError, type EvmChain } from './chain.js';
export { DeliveryKeyError } from './keys.js';
export { WarpRulesError, warpRulesFromChainConfig, DEFAULT_QUORUM_NUMERATOR } from './warp-rules.js';
export { deliveryGas, GRANITE_WARP_GAS, PRE_GRANITE_WARP_GAS, type WarpGasSchedule } from './gas.js';
export { decodeSendWarpMessageLog } from './decode.js';
export { packPredicate, unpackPredicate, predicateChunks, warpAccessList } from './predicate.js';
export { WARP_PRECOMPILE_ADDRESS, TELEPORTER_MESSENGER_ABI, SEND_WARP_MESSAGE_EVENT } from './abi.js';
