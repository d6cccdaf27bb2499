// What the service holds for a request to many validators (issue 12): each request used to keep
// its own frame, a copy of message + justification, until it settled: one request to 1,500
// validators with a 152 KiB body held ~223 MB. The body is now encoded once per aggregation and a
// request keeps no frame once it is written. Vitest runs each file in its own process, so this
// file's memory is this test's.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bytesToHex } from '../../src/warp/hex.js';
import { Closer, httpServer, pool, waitFor } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const closer = new Closer();
afterEach(() => closer.closeAll());

/** External memory (Buffers) after collecting garbage. */
function heldBuffers(): number {
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

describe('memory held by outstanding requests', () => {
  it('does not grow with message size × validators: one shared body, no frame kept per request', async () => {
    const validators = 64;
    const message = new Uint8Array(24 * 1024).fill(1);
    const justification = new Uint8Array(128 * 1024).fill(2);
    const bodyBytes = message.length + justification.length;

    const { server, port } = await httpServer(closer);
    // Keys are not checked here: what is measured is what follows the handshake.
    const p = pool(closer, { verifyPossession: async () => true, maxPendingPerIp: validators, handshakesPerMinutePerIp: 0 });
    p.attach(server);
    // Validators that read every sign frame, keep nothing, and never answer.
    let received = 0;
    for (let i = 0; i < validators; i++) {
      const ws = closer.add(new WebSocket(`ws://127.0.0.1:${port}/v1/peers`, { perMessageDeflate: false }), (w) => void w.terminate());
      ws.on('message', (data, isBinary) => {
        if (isBinary) return void received++;
        if (JSON.parse(data.toString()).type === 'challenge') {
          ws.send(JSON.stringify({ v: 1, type: 'hello', publicKey: bytesToHex(new Uint8Array(48).fill(i + 1)), proof: 'ab'.repeat(96) }));
        }
      });
      ws.on('error', () => {});
    }
    await waitFor(() => p.connectedKeys().length === validators, 'every validator connected', 20_000);

    const before = heldBuffers();
    const req = { message, justification };
    const pending = p.connectedKeys().map((key) => p.request(key, req, { timeoutMs: 60_000 }).catch((e: unknown) => e));
    await waitFor(() => received === validators, 'every validator received its sign frame', 20_000);
    expect(p.stats().inFlight).toBe(validators);
    const held = heldBuffers() - before;

    // Before: 64 × 152 KiB ≈ 9.5 MiB. After: the one body (and noise).
    expect(held).toBeLessThan((validators * bodyBytes) / 8);
    await p.close();
    await Promise.all(pending);
  });
});
