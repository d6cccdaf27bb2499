// Writing answers with node's own response API, so a passed-through body, status and content
// type reach the client exactly as the upstream sent them (no ETag, no re-serialization).
import type { ServerResponse } from 'node:http';

export function sendBody(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer | string): void {
  if (res.headersSent || res.writableEnded) return;
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.setHeader('content-length', String(bytes.length));
  res.end(bytes);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendBody(res, status, { ...headers, 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(value));
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  sendBody(res, status, { ...headers, 'content-type': 'text/plain; charset=utf-8' }, text);
}

/** Answers with no body (a JSON-RPC notification gets nothing back). */
export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  sendBody(res, status, headers, Buffer.alloc(0));
}
