// What every HTTP answer gets before any route runs: headers that keep a browser from sniffing a
// JSON or text answer into something it renders or from framing any of it (the status page's CSP
// says frame-ancestors 'none' too), and, when allowedHosts is set, a check of the Host header: a
// page on another origin that rebinds its own DNS name to this service's address (DNS
// rebinding) sends its own name as Host, and is refused before it can read an answer.
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dialectOfPath } from './dialects.js';
import { quoteValue } from '../util/peer-text.js';

/** On every answer: express's and the shutdown gate's alike. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' };

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}

/** The host name a Host header names, without its port, lower case; brackets kept off an IPv6 literal. */
export function hostNameOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(1, end);
  }
  const colon = h.indexOf(':');
  // A bare IPv6 address is not a valid Host header; a name:port or IPv4:port is.
  const name = colon >= 0 && h.indexOf(':', colon + 1) < 0 ? h.slice(0, colon) : h;
  return name.replace(/\.$/, '');
}

/**
 * Refuses (403, in the path's dialect) a request whose Host header names none of `allowed`
 * (names or IP literals, any port); no check when `allowed` is empty.
 */
export function hostCheck(allowed: readonly string[]): (req: Request, res: Response, next: NextFunction) => void {
  const names = new Set(allowed.map((h) => hostNameOf(h)));
  return (req, res, next) => {
    if (names.size === 0) return next();
    const given = hostOf(req);
    if (given !== undefined && names.has(hostNameOf(given))) return next();
    const message = `host ${given === undefined ? 'missing' : quoteValue(given)}: not a name this service answers to (allowedHosts)`;
    res.status(403).json(dialectOfPath(req.path).errorBody(403, message));
  };
}

function hostOf(req: IncomingMessage): string | undefined {
  const h = req.headers.host;
  return typeof h === 'string' && h !== '' ? h : undefined;
}
