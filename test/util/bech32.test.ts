// Bech32 as avalanchego writes and reads addresses: the proxy's address rules decode with it, the
// devnet's P-Chain addresses are encoded with it.
import { describe, expect, test } from 'vitest';
import { bech32Decode, bech32Encode } from '../../src/util/bech32.js';
import { AVAX_ADDR, FUJI_ADDR } from '../proxy/fixtures.js';

const BYTES_0_TO_19 = Uint8Array.from({ length: 20 }, (_, i) => i);

describe('bech32', () => {
  test('decodes Avalanche addresses and rejects corruption', () => {
    expect(bech32Decode(AVAX_ADDR)).toEqual({ hrp: 'avax', bytes: BYTES_0_TO_19 });
    expect(bech32Decode(AVAX_ADDR.toUpperCase())?.hrp).toBe('avax');
    expect(bech32Decode(`${AVAX_ADDR.slice(0, -1)}q`)).toBeNull();
    expect(bech32Decode('avax1' + AVAX_ADDR.slice(5).replace('q', 'b'))).toBeNull();
    expect(bech32Decode('aVax1qqqsyqcyq5rqwzqfpg9scrgwpugpzysnk5ungy')).toBeNull();
  });

  test('encodes as the BIP 173 reference implementation does', () => {
    expect(bech32Encode('avax', BYTES_0_TO_19)).toBe(AVAX_ADDR);
    expect(bech32Encode('fuji', BYTES_0_TO_19)).toBe(FUJI_ADDR);
    expect(bech32Decode(bech32Encode('local', Uint8Array.of(1, 2, 3)))).toEqual({ hrp: 'local', bytes: Uint8Array.of(1, 2, 3) });
  });
});
