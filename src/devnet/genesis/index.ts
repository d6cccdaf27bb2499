// The devnet's genesis as the rest of warpgate sees it: build one from a seed, and read its
// history (heights, times, the L1's validator set at a height).
export { buildGenesis } from './build.js';
export { DevnetGenesisError } from './errors.js';
export { GENESIS_TIME, HEIGHTS, KEYLESS_NODE_ID, WEIGHT_CHANGE_NONCE, l1EntriesAt, timeAtHeight } from './history.js';
export type { DevnetGenesis } from './types.js';
