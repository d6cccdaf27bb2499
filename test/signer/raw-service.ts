// A service driven by hand, to do to a listening signer what a real PeerPool never would: open
// connections and drop them, send a sign before the welcome, or never welcome at all. It records
// every frame and how the signer closed the connection.
import WebSocket from 'ws';
import { encodeFrame, encodeSign } from '../../src/peers/frames.js';
import { bytesToHex } from '../../src/warp/hex.js';

export class RawService {
  /** JSON frames as objects; binary ones as `{ binary: <hex> }`. */
  readonly frames: Record<string, unknown>[] = [];
  closeCode: number | undefined;
  closeReason = '';
  private readonly closed: Promise<void>;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.closeCode = code;
        this.closeReason = reason.toString();
        resolve();
        this.wake();
      });
    });
    ws.on('error', () => {});
    ws.on('message', (data, isBinary) => {
      this.frames.push(isBinary ? { binary: bytesToHex(data as Buffer) } : (JSON.parse(data.toString()) as Record<string, unknown>));
      this.wake();
    });
  }

  /** Dials the signer; `localAddress` picks the loopback address the connection comes from. */
  static async dial(url: string, localAddress?: string): Promise<RawService> {
    const ws = new WebSocket(url, { perMessageDeflate: false, ...(localAddress ? { localAddress } : {}) });
    const raw = new RawService(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return raw;
  }

  challenge(): void {
    this.ws.send(encodeFrame({ v: 1, type: 'challenge', challenge: '11'.repeat(32) }));
  }

  /** `uncompressedSignatures`: ask for the 192-byte form, as a PeerPool does; without it, a service from before it. */
  welcome(uncompressedSignatures?: boolean): void {
    this.ws.send(encodeFrame(uncompressedSignatures === undefined ? { v: 1, type: 'welcome' } : { v: 1, type: 'welcome', uncompressedSignatures }));
  }

  sign(id: number, message: Uint8Array, justification = new Uint8Array()): void {
    this.ws.send(encodeSign(id, message, justification));
  }

  /** Resolves with the first frame of `type` (or binary frame), or when the connection closes (undefined). */
  async next(type: string, ms = 5_000): Promise<Record<string, unknown> | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.find((f) => (type === 'binary' ? 'binary' in f : f.type === type));
      if (found) return found;
      if (this.closeCode !== undefined) return undefined;
      if (Date.now() > deadline) throw new Error(`no ${type} frame within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitClosed(ms = 5_000): Promise<{ code: number; reason: string }> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.closed,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not closed within ${ms} ms`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
    return { code: this.closeCode!, reason: this.closeReason };
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.ws.terminate();
    return this.closed;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
