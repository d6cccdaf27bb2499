// `serve` with an upstream node that is unreachable, then answers nonsense, then comes right: the
// service answers /health throughout, /ready says why it is not ready, and the p2p transport keeps
// asking for the network ID in the background until it can start, then connects and signs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/service/start.js';
import { startRpcServer } from '../node/rpc-server.js';
import { request } from '../ops/helpers.js';
import { aggregate, closeWorld, messageHex, startWorld, startWorldService, until } from './p2p-world.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
  await closeWorld();
});

/** A free port on 127.0.0.1 that nobody listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

describe('serve while the node is unreachable or answers nonsense', () => {
  it('answers /health, keeps /ready truthful, and starts the p2p transport once the node answers', async () => {
    const w = await startWorld({ seed: 'node-down', withService: false });
    const port = await freePort();
    const service = await startWorldService(w, {}, `http://127.0.0.1:${port}`);

    // Unreachable.
    expect((await request(`${service.url}/health`)).status).toBe(200);
    const down = await request(`${service.url}/ready`);
    expect(down.status).toBe(503);
    expect(down.body.reasons[0]).toMatch(/^node does not answer: /);
    expect(down.body.peers).toMatchObject({ connected: { ws: 0, p2p: 0 }, p2p: { state: 'waiting-for-node', connected: 0 } });
    await until('the transport to report the unreachable node', () => w.log.records.some((r) => r.msg === 'p2p transport waiting for the node’s network ID (info.getNetworkID)'));

    // Nonsense: a network ID that is not one, and garbage for everything else.
    let mode: 'nonsense' | 'forward' = 'nonsense';
    const nonsenseCalls: string[] = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (mode === 'nonsense') {
          nonsenseCalls.push((JSON.parse(body.toString()) as { method: string }).method);
          res.setHeader('content-type', 'application/json');
          res.end('{"jsonrpc":"2.0","id":1,"result":{"networkID":"banana","height":"tall"}}');
          return;
        }
        fetch(`${w.pchain.url}${req.url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
          async (answer) => {
            res.statusCode = answer.status;
            res.setHeader('content-type', 'application/json');
            res.end(Buffer.from(await answer.arrayBuffer()));
          },
          () => res.destroy(),
        );
      });
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    await until('the transport to ask the nonsense node', () => nonsenseCalls.includes('info.getNetworkID'), 60_000);
    expect((await request(`${service.url}/health`)).status).toBe(200);
    const nonsense = await request(`${service.url}/ready`);
    expect(nonsense.status).toBe(503);
    expect(service.p2p!.state).toBe('waiting-for-node');

    // The node comes right: the transport starts, discovers, connects; /ready and aggregations follow.
    mode = 'forward';
    await until('every validator to be connected over p2p', () => service.p2p!.connectedCount() === w.nodes.length, 90_000);
    const up = await request(`${service.url}/ready`);
    expect(up.status).toBe(200);
    expect(up.body.peers).toMatchObject({ connected: { ws: 0, p2p: w.nodes.length }, p2p: { state: 'running', connected: w.nodes.length } });
    expect((await aggregate(service, messageHex(w, 'the node is back'))).status).toBe(201);
  }, 150_000);

  it('shuts down at once while its network-ID call to a silent node is still waiting', async () => {
    const silent = await startRpcServer(() => ({ hang: true }), ['/ext/bc/P', '/ext/info']);
    try {
      const service = await startService(
        loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', 'workers.threads': 1, 'upstreams.node': silent.url, 'validatorSets.nodeTimeoutMs': 120_000 } }),
        { logger: pino({ level: 'silent' }) },
      );
      await until('the transport to ask the node', () => silent.calls.some((c) => c.method === 'info.getNetworkID'));
      await service.close();
      // Closed while the node still holds the call (its own timeout is two minutes away).
      expect(silent.holding).toBeGreaterThanOrEqual(1);
      expect(service.p2p!.state).toBe('closed');
    } finally {
      await silent.close();
    }
  });
});
