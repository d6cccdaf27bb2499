// cutPeerText: short text unchanged; long text cut to its first characters, marked with the length
// it had; a cut text passes a second cut unchanged; a surrogate pair is never split.
import { describe, expect, it } from 'vitest';
import { cutPeerText, MAX_PEER_TEXT_CHARS } from '../../src/util/peer-text.js';

describe('cutPeerText', () => {
  it('keeps short text, cuts long text with its length, and cuts a cut text no further', () => {
    expect(cutPeerText('no')).toBe('no');
    expect(cutPeerText('a'.repeat(MAX_PEER_TEXT_CHARS))).toBe('a'.repeat(MAX_PEER_TEXT_CHARS));
    const cut = cutPeerText('a'.repeat(10_000));
    expect(cut).toBe(`${'a'.repeat(512)}… (cut, 10000 characters)`);
    expect(cutPeerText(cut)).toBe(cut);
    expect(cutPeerText('abcdefgh', 4)).toBe('abcd… (cut, 8 characters)');
    // A text that only looks cut but is longer than the limit allows is cut again.
    const fake = `${'b'.repeat(600)}… (cut, 9 characters)`;
    expect(cutPeerText(fake)).toBe(`${'b'.repeat(512)}… (cut, ${fake.length} characters)`);
  });

  it('never splits a surrogate pair', () => {
    expect(cutPeerText(`abc${'😀'.repeat(5)}`, 4)).toBe(`abc… (cut, 13 characters)`);
  });
});
