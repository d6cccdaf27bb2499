// P-Chain addresses as the node prints them: `P-<hrp>1<bech32 of the 20-byte short ID>`, the
// HRP chosen by network ID (avalanchego utils/constants). Transaction outputs, subnet control
// keys and L1 validator owners are shown this way in JSON-RPC results.
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { bech32Encode } from '../../util/bech32.js';

const NETWORK_HRPS: ReadonlyMap<number, string> = new Map([
  [1, 'avax'],
  [2, 'cascade'],
  [3, 'denali'],
  [4, 'everest'],
  [5, 'fuji'],
  [10, 'testing'],
  [12345, 'local'],
]);
const FALLBACK_HRP = 'custom';

function hrpOfNetwork(networkId: number): string {
  return NETWORK_HRPS.get(networkId) ?? FALLBACK_HRP;
}

/** The 20-byte short ID of a compressed secp256k1 public key: ripemd160(sha256(key)). */
export function shortIdOfPublicKey(compressedKey: Uint8Array): Uint8Array {
  return ripemd160(sha256(compressedKey));
}

/** `P-local1…` for a 20-byte short ID. */
export function formatPChainAddress(shortId: Uint8Array, networkId: number): string {
  return `P-${bech32Encode(hrpOfNetwork(networkId), shortId)}`;
}
