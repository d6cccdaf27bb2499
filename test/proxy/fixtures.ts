// Values that satisfy the seeds' rules, shared by the proxy tests.
import { nodeIdToString } from '../../src/warp/cb58.js';

export const ADDR = `0x${'aB'.repeat(20)}`;
export const ADDR2 = `0x${'12'.repeat(20)}`;
export const NODE = nodeIdToString(new Uint8Array(20).fill(7));
export const NODE2 = nodeIdToString(Uint8Array.from({ length: 20 }, (_, i) => i));
export const PRIMARY = '11111111111111111111111111111111LpoYY';
export const C_CHAIN = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
/** bech32 of the bytes 0..19 (generated with the BIP 173 reference implementation). */
export const AVAX_ADDR = 'avax1qqqsyqcyq5rqwzqfpg9scrgwpugpzysnk5ungy';
export const FUJI_ADDR = 'fuji1qqqsyqcyq5rqwzqfpg9scrgwpugpzysn6xcvym';
export const FUJI_ADDR2 = 'fuji1zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3cd758d';
