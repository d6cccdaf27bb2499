// Sits in front of the express app and makes shutdown graceful at the HTTP level: it knows which
// requests are in flight, and once shutdown begins it answers new requests (arriving on kept-alive
// connections; the listener itself is closed) with 503 and `connection: close`, and asks the
// clients of in-flight requests to close their connection after the answer.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { dialectOfPath } from './dialects.js';
import { SECURITY_HEADERS } from './edge.js';

export class ShutdownGate {
  private readonly open = new Set<ServerResponse>();
  private closing = false;
  private drainedWaiters: (() => void)[] = [];

  /** The request listener for http.createServer: `app` behind the gate. */
  wrap(app: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      if (this.closing) return refuse(req, res);
      this.open.add(res);
      // 'close' fires once the answer is flushed or the connection is gone, whichever comes first.
      res.once('close', () => {
        this.open.delete(res);
        if (this.open.size === 0) for (const wake of this.drainedWaiters.splice(0)) wake();
      });
      app(req, res);
    };
  }

  get inFlight(): number {
    return this.open.size;
  }

  get shuttingDown(): boolean {
    return this.closing;
  }

  /** From now on new requests are refused; in-flight ones finish and close their connection. */
  begin(): void {
    this.closing = true;
    for (const res of this.open) if (!res.headersSent) res.setHeader('connection', 'close');
  }

  /** Resolves true once no request is in flight, or false when `ms` passes first. */
  drained(ms: number): Promise<boolean> {
    if (this.open.size === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.drainedWaiters = this.drainedWaiters.filter((w) => w !== wake);
        resolve(false);
      }, ms);
      this.drainedWaiters.push(wake);
    });
  }
}

function refuse(req: IncomingMessage, res: ServerResponse): void {
  const message = 'the service is shutting down; retry on another instance';
  const body = JSON.stringify(dialectOfPath((req.url ?? '').split('?')[0]!).errorBody(503, message));
  res.writeHead(503, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close', 'retry-after': '1' });
  res.end(body);
  // The request body (if any) is not read; drop it so the socket can close.
  req.resume();
}
