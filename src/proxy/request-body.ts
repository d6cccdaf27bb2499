// Reading a JSON-RPC request body ourselves (the server applies no body parser before the proxy),
// so the proxy decides what an unparseable or oversized body gets. Bounded in size and time: a
// client that trickles bytes cannot hold the request open past the deadline.
import type { IncomingMessage } from 'node:http';
import { BodyCap, declaredOver } from '../util/read-body.js';

export class RequestBodyError extends Error {
  override readonly name = 'RequestBodyError';
  constructor(
    /** 413 too large, 408 too slow, 400 the client went away mid-body, 415 a compressed body. */
    readonly status: 400 | 408 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

export function readRequestBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  // Another middleware read the stream already: use what it parsed.
  if (req.readableEnded) {
    const parsed = (req as { body?: unknown }).body;
    if (parsed === undefined) return Promise.resolve(Buffer.alloc(0));
    if (Buffer.isBuffer(parsed)) return Promise.resolve(parsed);
    return Promise.resolve(Buffer.from(typeof parsed === 'string' ? parsed : JSON.stringify(parsed), 'utf8'));
  }
  // The node's JSON-RPC servers read bodies as sent; a compressed one would only reach them as
  // garbage, so it is refused (RFC 9110 section 15.5.16) instead of answered as a parse error.
  const coding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (coding !== '' && coding !== 'identity') {
    return Promise.reject(new RequestBodyError(415, 'content-encoding is not supported here; send the body uncompressed'));
  }
  if (declaredOver(req.headers['content-length'], limit)) {
    return Promise.reject(new RequestBodyError(413, `the request body is larger than ${limit} bytes`));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const body = new BodyCap(limit);
    let settled = false;
    const done = (err: RequestBodyError | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onClose);
      req.off('close', onClose);
      if (err) {
        // Discard the rest; the answer closes the connection.
        req.resume();
        reject(err);
      } else {
        resolve(body.bytes());
      }
    };
    const onData = (chunk: Buffer): void => {
      if (!body.add(chunk)) done(new RequestBodyError(413, `the request body is larger than ${limit} bytes`));
    };
    const onEnd = (): void => done(null);
    const onClose = (): void => done(new RequestBodyError(400, 'the client closed the connection before sending the whole body'));
    const timer = setTimeout(() => done(new RequestBodyError(408, `the request body did not arrive within ${timeoutMs} ms`)), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onClose);
    req.on('close', onClose);
  });
}
