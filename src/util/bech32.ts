// Bech32 (BIP 173, the original checksum constant 1 that avalanchego uses, not bech32m) through
// @scure/base: the proxy checks the X-Chain and P-Chain addresses the Data API takes
// (`P-avax1…`, `fuji1…`), and the devnet prints P-Chain addresses as a node does.
import { bech32 } from '@scure/base';

interface Bech32Decoded {
  hrp: string;
  bytes: Uint8Array;
}

/** Decodes a bech32 string; null when it is not one (bad case mix, length, characters, checksum or padding). */
export function bech32Decode(text: string): Bech32Decoded | null {
  const decoded = bech32.decodeUnsafe(text);
  if (decoded === undefined) return null;
  const bytes = bech32.fromWordsUnsafe(decoded.words);
  return bytes === undefined ? null : { hrp: decoded.prefix, bytes };
}

/** `hrp1…`: `data` as 5-bit groups (the last one zero-padded) and a 6-character checksum. */
export function bech32Encode(hrp: string, data: Uint8Array): string {
  return bech32.encode(hrp, bech32.toWords(data));
}
