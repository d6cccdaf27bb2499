// The size cap every body reader shares: a declared length over the cap is refused before any
// byte is read, and counting chunks stops keeping them the moment the cap is passed.
import { describe, expect, it } from 'vitest';
import { BodyCap, declaredOver, readBodyCapped } from '../../src/util/read-body.js';

describe('declaredOver', () => {
  it('is true only for a content-length above the limit', () => {
    expect(declaredOver('11', 10)).toBe(true);
    expect(declaredOver('10', 10)).toBe(false);
    expect(declaredOver(undefined, 10)).toBe(false);
    expect(declaredOver(null, 10)).toBe(false);
    expect(declaredOver('not a number', 10)).toBe(false);
  });
});

describe('BodyCap', () => {
  it('keeps chunks up to the limit exactly, and none once it is passed', () => {
    const body = new BodyCap(5);
    expect(body.add(Buffer.from('abc'))).toBe(true);
    expect(body.add(Buffer.from('de'))).toBe(true);
    expect(body.bytes().toString()).toBe('abcde');
    expect(body.add(Buffer.from('f'))).toBe(false);
    expect(body.add(Buffer.from(''))).toBe(false);
    expect(body.bytes()).toHaveLength(0);
  });
});

describe('readBodyCapped', () => {
  const streamOf = (...parts: string[]): ReadableStream<Uint8Array> =>
    new ReadableStream({
      start(controller) {
        for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
        controller.close();
      },
    });

  it('reads a body within the cap, and refuses a larger one whether or not it declares its length', async () => {
    expect(await readBodyCapped(new Response(streamOf('12', '345')), 5)).toBe('12345');
    expect(await readBodyCapped(new Response(streamOf('123', '456')), 5)).toBeNull();
    // A body that never ends: only the announced length can refuse it without reading.
    const announced = new Response(new ReadableStream(), { headers: { 'content-length': '6' } });
    expect(await readBodyCapped(announced, 5)).toBeNull();
  });
});
