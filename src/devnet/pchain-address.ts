// P-Chain addresses as the node prints them: `P-<hrp>1<bech32 of the 20-byte short ID>`, the
// HRP chosen by network ID (avalanchego utils/constants). Transaction outputs, subnet control
// keys and L1 validator owners are shown this way in JSON-RPC results.
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';

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

export function hrpOfNetwork(networkId: number): string {
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

// --- bech32 (BIP-173; avalanchego uses the original checksum constant 1, not bech32m) ----------

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    GENERATORS.forEach((g, i) => {
      if ((top >>> i) & 1) chk = (chk ^ g) >>> 0;
    });
  }
  return chk;
}

function expandHrp(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >>> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

/** 8-bit bytes to 5-bit groups, padding the last group with zero bits. */
function toWords(bytes: Uint8Array): number[] {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  return words;
}

export function bech32Encode(hrp: string, data: Uint8Array): string {
  const words = toWords(data);
  const mod = polymod([...expandHrp(hrp), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum: number[] = [];
  for (let i = 0; i < 6; i++) checksum.push((mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => CHARSET[w]).join('')}`;
}
