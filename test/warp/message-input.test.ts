import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bytesToHex, concatBytes, hexToBytes, parseMessageInput, unwrapSendWarpMessageLogData, WarpFormatError } from '../../src/warp/index.js';
import { formatError } from './format-error.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'));
const unsignedHex = vectors.signedMessages[0].unsignedMessage as string;
const unsigned = hexToBytes(unsignedHex);

function word(n: number): Uint8Array {
  const w = new Uint8Array(32);
  new DataView(w.buffer).setUint32(28, n);
  return w;
}

/** ABI encoding of a single `bytes` value, as the SendWarpMessage log data carries it. */
function abiBytes(data: Uint8Array): Uint8Array {
  return concatBytes(word(32), word(data.length), data, new Uint8Array((32 - (data.length % 32)) % 32));
}


describe('message input', () => {
  const logData = abiBytes(unsigned);

  it('accepts the raw unsigned message and the SendWarpMessage log data alike', () => {
    expect(unsigned.length % 32).not.toBe(0);
    const raw = parseMessageInput(unsignedHex);
    const fromLog = parseMessageInput(`0x${bytesToHex(logData)}`);
    expect(fromLog).toEqual(raw);
    expect(bytesToHex(raw.id)).toBe(vectors.signedMessages[0].messageID);
  });

  it('unwraps log data and leaves other input alone', () => {
    expect(unwrapSendWarpMessageLogData(logData)).toEqual(unsigned);
    expect(unwrapSendWarpMessageLogData(unsigned)).toBeNull();
    expect(unwrapSendWarpMessageLogData(new Uint8Array(10))).toBeNull();
    expect(unwrapSendWarpMessageLogData(abiBytes(new Uint8Array(64).fill(1)))).toEqual(new Uint8Array(64).fill(1));
    expect(unwrapSendWarpMessageLogData(abiBytes(new Uint8Array(0)))).toEqual(new Uint8Array(0));
  });

  it('validates the whole ABI encoding', () => {
    const badPad = Uint8Array.from(logData);
    badPad[badPad.length - 1] = 1;
    expect(formatError(() => unwrapSendWarpMessageLogData(badPad)).what).toBe('SendWarpMessage log data.padding');
    formatError(() => unwrapSendWarpMessageLogData(concatBytes(logData, new Uint8Array(32)))); // extra word
    formatError(() => unwrapSendWarpMessageLogData(logData.subarray(0, logData.length - 1))); // short padding
    formatError(() => unwrapSendWarpMessageLogData(concatBytes(word(32), word(unsigned.length)))); // no data
    formatError(() => unwrapSendWarpMessageLogData(word(32))); // no length word
    const hugeLength = concatBytes(word(32), new Uint8Array(32).fill(0xff), unsigned);
    expect(formatError(() => unwrapSendWarpMessageLogData(hugeLength)).what).toBe('SendWarpMessage log data.length');
  });

  it('names the input in hex errors and rejects an empty message', () => {
    expect(formatError(() => parseMessageInput('0x123', 'body.message')).what).toBe('body.message');
    expect(formatError(() => parseMessageInput('', 'message')).message).toBe('message: is empty');
    expect(formatError(() => parseMessageInput(`${unsignedHex}00`)).message).toMatch(/trailing/);
  });
});
