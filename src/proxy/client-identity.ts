// Who a request comes from (for rate limits and shared upstream calls) and which of its headers
// travel upstream. API keys never leave this module except as the upstream header and a hash.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { addressGroup } from '../util/address-group.js';

/**
 * Request headers forwarded upstream. An allow-list: hop-by-hop headers (connection, keep-alive,
 * te, trailer, transfer-encoding, upgrade, proxy-*), cookies, authorization, host and forwarding
 * headers never pass. Content-Type matters for JSON-RPC and the Metrics API asks for it on GETs.
 */
const FORWARDED_REQUEST_HEADERS: readonly string[] = ['accept', 'accept-language', 'content-type', 'user-agent', 'x-request-id'];

const API_KEY_HEADER = 'x-glacier-api-key';
/** The header name the seeds document; accepted from clients, sent upstream as x-glacier-api-key. */
const SEED_API_KEY_HEADER = 'x-data-api-key';

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

/** The client's own API key, if it sent one (x-glacier-api-key wins over x-data-api-key). */
export function clientApiKey(req: IncomingMessage): string | undefined {
  return header(req, API_KEY_HEADER) ?? header(req, SEED_API_KEY_HEADER);
}

/**
 * The client's address as the rate limits count it (honours the app's `trust proxy` setting): an
 * IPv4 address as is, an IPv6 one by its /64 (addressGroup).
 */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress;
  return address === undefined ? 'unknown' : addressGroup(address);
}

/** A short one-way name for a key, safe to keep in memory maps and to compare. */
export function keyFingerprint(apiKey: string | undefined): string {
  return apiKey === undefined ? 'none' : createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
}

/** The headers sent upstream: the allow-listed client headers plus the API key in use. */
export function upstreamHeaders(req: IncomingMessage, apiKey: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const v = req.headers[name];
    if (v === undefined) continue;
    out[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  if (apiKey !== undefined) out[API_KEY_HEADER] = apiKey;
  return out;
}
