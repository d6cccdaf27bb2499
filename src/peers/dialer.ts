// Keeps one outgoing WebSocket connection to a URL alive: dials, hands each opened socket to the
// protocol code, and after every close waits a jittered, growing delay before dialing again.
// Whoever dialed reconnects (docs/peer-protocol.md, "Reconnecting"); stop() ends that for good.
import WebSocket from 'ws';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import type { PeerLogger } from './logger.js';
import { CloseCode } from './frames.js';
import { closeSocket, socketOptions } from './socket.js';

interface DialerOptions {
  url: string;
  reconnect: BackoffOptions;
  maxFrameBytes: number;
  /** Deadline for the HTTP upgrade. */
  handshakeTimeoutMs: number;
  /** Runs the protocol on each newly opened socket. */
  onOpen(ws: WebSocket): void;
  /** A floor for the next wait, e.g. until a penalized key's cooldown ends. */
  minDelayMs?: () => number;
  logger: PeerLogger;
  random?: () => number;
}

type DialerState = 'connecting' | 'open' | 'waiting' | 'stopped';

/** Throws a RangeError naming the URL when it is not a ws:// or wss:// URL. */
export function checkPeerUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError(`peer URL '${url}' is not a URL`);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new RangeError(`peer URL '${url}' must start with ws:// or wss://`);
  }
  return url;
}

export class Dialer {
  private attempt = 0;
  private ws: WebSocket | undefined;
  private timer: NodeJS.Timeout | undefined;
  private current: DialerState = 'waiting';
  /** A refused upgrade's Retry-After, a floor for the next wait. */
  private retryAfterMs = 0;

  constructor(private readonly opts: DialerOptions) {
    checkPeerUrl(opts.url);
  }

  get url(): string {
    return this.opts.url;
  }

  get state(): DialerState {
    return this.current;
  }

  start(): void {
    if (this.current === 'stopped' || this.ws || this.timer) return;
    this.dial();
  }

  /** The connection completed the handshake: the next reconnect starts from the shortest wait. */
  markHealthy(): void {
    this.attempt = 0;
  }

  async stop(): Promise<void> {
    this.current = 'stopped';
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const ws = this.ws;
    this.ws = undefined;
    if (ws) await closeSocket(ws, CloseCode.goingAway, 'shutting down');
  }

  private dial(): void {
    this.timer = undefined;
    this.current = 'connecting';
    const ws = new WebSocket(this.opts.url, {
      ...socketOptions(this.opts.maxFrameBytes),
      handshakeTimeout: this.opts.handshakeTimeoutMs,
    });
    this.ws = ws;
    ws.on('open', () => {
      if (this.current === 'stopped') return;
      this.current = 'open';
      this.opts.onOpen(ws);
    });
    ws.on('error', (err) => {
      this.opts.logger.debug?.({ url: this.opts.url, err: err.message }, 'peer connection error');
    });
    // A refused upgrade (429 or 503 from a service's peer limits) may say when to come back.
    ws.on('unexpected-response', (_req, res) => {
      const seconds = Number(res.headers['retry-after']);
      this.retryAfterMs = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3_600) * 1000 : 0;
      this.opts.logger.debug?.({ url: this.opts.url, status: res.statusCode }, 'peer connection refused');
      res.resume();
      ws.terminate();
    });
    ws.on('close', (code, reason) => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      if (this.current === 'stopped') return;
      this.schedule(code, reason.toString());
    });
  }

  private schedule(code: number, reason: string): void {
    const delay = Math.max(backoffDelay(this.attempt, this.opts.reconnect, this.opts.random), this.opts.minDelayMs?.() ?? 0, this.retryAfterMs);
    this.retryAfterMs = 0;
    this.attempt++;
    this.current = 'waiting';
    this.opts.logger.debug?.({ url: this.opts.url, code, reason, retryInMs: delay }, 'peer connection closed, will redial');
    this.timer = setTimeout(() => this.dial(), delay);
  }
}
