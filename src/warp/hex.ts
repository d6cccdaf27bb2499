import { WarpFormatError } from './errors.js';

const HEX_RE = /^[0-9a-fA-F]*$/;

/** Decodes hex with or without a `0x` prefix. `what` names the input in the error. */
export function hexToBytes(hex: string, what = 'hex'): Uint8Array {
  if (typeof hex !== 'string') throw new WarpFormatError(what, 'must be a hex string');
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (body.length % 2 !== 0) throw new WarpFormatError(what, 'hex has an odd number of digits');
  if (!HEX_RE.test(body)) throw new WarpFormatError(what, 'contains a character that is not a hex digit');
  return Uint8Array.from(Buffer.from(body, 'hex'));
}

/** Lower-case hex without a prefix. */
export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Lower-case hex with the `0x` prefix that JSON-RPC byte fields use. */
export function bytesTo0xHex(bytes: Uint8Array): string {
  return `0x${bytesToHex(bytes)}`;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
