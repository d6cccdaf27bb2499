// Dead-peer detection with WebSocket ping/pong. Every interval, a connection that has shown no
// sign of life (no pong, no frame) since the previous ping is terminated; otherwise it is pinged
// again. A dead peer is therefore noticed within two intervals.
import type { WebSocket } from 'ws';

export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * Starts the heartbeat; the returned function stops it (also stopped when the socket closes).
 * `onBeat` runs at every interval of a live connection (the session's housekeeping).
 */
export function startHeartbeat(ws: WebSocket, intervalMs: number, onDead: () => void, onBeat?: () => void): () => void {
  let alive = true;
  const markAlive = (): void => {
    alive = true;
  };
  ws.on('pong', markAlive);
  ws.on('message', markAlive);
  const timer = setInterval(() => {
    if (!alive) {
      stop();
      onDead();
      ws.terminate();
      return;
    }
    alive = false;
    onBeat?.();
    try {
      ws.ping();
    } catch {
      // The socket is closing; its 'close' handler stops the heartbeat.
    }
  }, intervalMs);
  const stop = (): void => {
    clearInterval(timer);
    ws.off('pong', markAlive);
    ws.off('message', markAlive);
    ws.off('close', stop);
  };
  ws.on('close', stop);
  return stop;
}
