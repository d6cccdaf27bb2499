// A tiny stand-in for a validator node's EVM warp API: POST /ext/bc/{chain}/rpc, geth-style
// JSON-RPC. Tests decide the answers and see every call.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, type Closer } from '../peers/helpers.js';

export interface RpcCall {
  path: string;
  method: string;
  params: unknown[];
}

export type RpcAnswer = { result: unknown } | { error: { code: number; message: string } };

export async function fakeNode(closer: Closer, answer: (call: RpcCall) => RpcAnswer): Promise<{ url: string; calls: RpcCall[] }> {
  const calls: RpcCall[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: unknown; method: string; params: unknown[] };
      const call = { path: req.url ?? '', method, params };
      calls.push(call);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...answer(call) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closer.add(server, closeServer);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}
