// Small helpers around a ws socket that both roles share.
import WebSocket from 'ws';
import { closeReason, encodeSignHeader, encodeSignWithBody } from './frames.js';

/** How long a closing handshake may take before the socket is destroyed (ws waits 30 s). */
const CLOSE_GRACE_MS = 2_000;

/**
 * Socket options both roles use: our frame limit, no compression (a compressed frame would cost
 * CPU to inflate before the size check), and a short closing handshake.
 */
export function socketOptions(maxFrameBytes: number): { maxPayload: number; perMessageDeflate: false } {
  // closeTimeout exists in ws 8.18+ but not in its type definitions.
  return { maxPayload: maxFrameBytes, perMessageDeflate: false, closeTimeout: CLOSE_GRACE_MS } as {
    maxPayload: number;
    perMessageDeflate: false;
  };
}

/** Sends a text frame (a string) or a binary one (bytes) if the socket is still open; false when it was not. */
export function sendFrame(ws: WebSocket, frame: string | Buffer): boolean {
  if (ws.readyState !== WebSocket.OPEN) return false;
  ws.send(frame, { binary: typeof frame !== 'string' });
  return true;
}

/**
 * Sign bodies up to this size are copied behind their header into one frame: cheaper than a
 * second write. Larger ones go as the second fragment of the same WebSocket message (RFC 6455
 * 5.4; every WebSocket library reassembles it), so the connections asked about one message all
 * write the one shared body instead of a copy each.
 */
const INLINE_SIGN_BODY_BYTES = 16 * 1024;

/**
 * Sends a sign frame for request `id` with a shared body (encodeSignBody) if the socket is open.
 * The body is never written to: ws masks a client's frames into a copy of a Buffer it is given.
 */
export function sendSign(ws: WebSocket, id: number, body: Buffer): boolean {
  if (ws.readyState !== WebSocket.OPEN) return false;
  if (body.length <= INLINE_SIGN_BODY_BYTES) {
    ws.send(encodeSignWithBody(id, body), { binary: true });
  } else {
    // Synchronous back to back: nothing else can be written between the two fragments.
    ws.send(encodeSignHeader(id), { binary: true, fin: false });
    ws.send(body, { binary: true, fin: true });
  }
  return true;
}

/** Closes with a code and reason and resolves once the socket is closed (destroyed after a grace period). */
export function closeSocket(ws: WebSocket, code: number, reason: string, graceMs = CLOSE_GRACE_MS): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => ws.terminate(), graceMs);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    if (ws.readyState === WebSocket.CONNECTING) {
      // close() on a connecting client aborts the handshake (and emits an error we do not need).
      ws.on('error', () => {});
      ws.terminate();
    } else if (ws.readyState === WebSocket.OPEN) {
      ws.close(code, closeReason(reason));
    }
  });
}
