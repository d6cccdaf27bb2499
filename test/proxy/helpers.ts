// Test plumbing: fake upstreams that record what reaches them, the proxy router mounted in a tiny
// express app, and a raw HTTP client (fetch would normalize the paths under test).
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createProxyRouter, type ProxyOptions } from '../../src/proxy/index.js';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type UpstreamHandler = (req: Recorded, res: ServerResponse) => void;

/** A port nothing listens on (a server was bound to it and closed). */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface FakeUpstream {
  url: string;
  requests: Recorded[];
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  connections: number;
  handle: UpstreamHandler;
  close(): Promise<void>;
}

/** Answers 200 with a small JSON body echoing the path it saw. */
export const echoJson: UpstreamHandler = (req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ echoed: req.url }));
};

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): UpstreamHandler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

export async function startUpstream(handle: UpstreamHandler = echoJson): Promise<FakeUpstream> {
  const requests: Recorded[] = [];
  const up: FakeUpstream = { url: '', requests, connections: 0, handle, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(rec);
      up.handle(rec, res);
    });
  });
  server.on('connection', () => up.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  up.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  up.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return up;
}

export interface ProxyApp {
  url: string;
  close(): Promise<void>;
}

/** The router at the root of an express app; what it does not serve falls through to a 404 marker. */
export async function startProxy(opts: ProxyOptions): Promise<ProxyApp> {
  const proxy = createProxyRouter(opts);
  const app = express();
  app.use(proxy.router);
  app.use((_req, res) => {
    res.status(404).json({ fellThrough: true });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await proxy.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): any;
}

/** One raw HTTP exchange; `path` goes on the request line exactly as given. */
export function call(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<Answer> {
  const url = new URL(base);
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, method, path, headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.setTimeout(opts.timeoutMs ?? 5000, () => req.destroy(new Error(`no answer to ${method} ${path}`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** POSTs a JSON-RPC body (a string is sent as is). */
export function rpc(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call(base, 'POST', path, {
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
