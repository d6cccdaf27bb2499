// A minimal node JSON-RPC endpoint on 127.0.0.1 for client tests (the P-Chain at /ext/bc/P
// unless told other paths). The handler decides each
// answer: a result, a JSON-RPC error, raw bytes, a hang (never answers) or a dropped connection.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

export type Reply =
  | { result: unknown }
  | { error: { code: number; message: string } }
  | { raw: string; status?: number }
  /** `result` given as JSON text, sent verbatim (for numbers JSON.stringify cannot write). */
  | { rawResult: string }
  /** Written in chunks with no content-length (chunked transfer encoding). */
  | { chunks: string[] }
  | { hang: true }
  | { drop: true };

export interface RpcCall {
  method: string;
  params: Record<string, unknown>;
  /** Set only when the server serves more than the P-Chain path. */
  path?: string;
}

export interface RpcServer {
  /** Base URL of the "node" (the client appends /ext/bc/P). */
  url: string;
  calls: RpcCall[];
  /** Requests answered with a hang whose connection is still open (the client has not given up). */
  readonly holding: number;
  close(): Promise<void>;
}

export async function startRpcServer(handle: (call: RpcCall, index: number) => Reply | Promise<Reply>, paths: readonly string[] = ['/ext/bc/P']): Promise<RpcServer> {
  const calls: RpcCall[] = [];
  let holding = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || !paths.includes(req.url ?? '')) {
          res.writeHead(404).end('404 page not found');
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; method: string; params?: Record<string, unknown> };
        const call: RpcCall = { method: body.method, params: body.params ?? {}, ...(paths.length > 1 ? { path: req.url } : {}) };
        calls.push(call);
        const reply = await handle(call, calls.length - 1);
        if ('hang' in reply) {
          holding++;
          res.on('close', () => holding--);
          return;
        }
        if ('drop' in reply) {
          req.socket.destroy();
          return;
        }
        if ('chunks' in reply) {
          res.writeHead(200, { 'content-type': 'application/json' });
          for (const chunk of reply.chunks) res.write(chunk);
          res.end();
          return;
        }
        if ('rawResult' in reply) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","result":${reply.rawResult},"id":${JSON.stringify(body.id)}}`);
          return;
        }
        if ('raw' in reply) {
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(reply.raw);
          return;
        }
        const envelope = 'result' in reply ? { jsonrpc: '2.0', result: reply.result, id: body.id } : { jsonrpc: '2.0', error: { ...reply.error, data: null }, id: body.id };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(envelope));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get holding() {
      return holding;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on which nothing listens: a port that was just free. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** What `promise` rejects with, checked to be a `type`; fails the test when it resolves. */
export async function rejectionOf<E>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const outcome = await promise.then(
    (value: unknown) => ({ value }),
    (err: unknown) => ({ err }),
  );
  if (!('err' in outcome)) throw new Error(`expected a ${type.name}, but the call resolved`);
  expect(outcome.err).toBeInstanceOf(type);
  return outcome.err as E;
}
