// The node's endpoints (seed 002): JSON-RPC APIs by path, and the GET health endpoints.
import type { Request, Response } from 'express';
import { P_CHAIN_ID, parseCb58Id } from '../warp/cb58.js';
import { bytesEqual } from '../warp/hex.js';
import { dataApiError } from './error-shapes.js';
import type { Gateway } from './gateway.js';
import { AVM_METHODS, EVM_METHODS, HEALTH_METHODS, INFO_METHODS, PLATFORM_METHODS, VALIDATORS_METHODS } from './node-methods.js';
import { PathPattern } from './path-pattern.js';
import { sendJson } from './respond.js';
import { serveRest } from './rest-handler.js';
import type { RestRoute } from './rest-routes.js';
import { serveRpc, type RpcEndpoint } from './rpc-handler.js';
import { AVALANCHEGO, GETH, type RpcDialect } from './rpc-dialects.js';

const HEALTH_REFUSED = 'the health API is node-specific and unavailable on this public server';

const X_CHAIN: RpcEndpoint = { label: '/ext/bc/X', dialect: AVALANCHEGO, methods: AVM_METHODS };
const P_CHAIN: RpcEndpoint = { label: '/ext/bc/P', dialect: AVALANCHEGO, methods: PLATFORM_METHODS };
const INFO: RpcEndpoint = { label: '/ext/info', dialect: AVALANCHEGO, methods: INFO_METHODS };
const HEALTH_RPC: RpcEndpoint = { label: '/ext/health', dialect: AVALANCHEGO, methods: HEALTH_METHODS, nodeSpecificApi: HEALTH_REFUSED };
const AVM_INSTANCE: RpcEndpoint = { label: '/ext/bc/{blockchainID}', dialect: AVALANCHEGO, methods: AVM_METHODS };
const P_CHAIN_BY_ID: RpcEndpoint = { label: '/ext/bc/{blockchainID}', dialect: AVALANCHEGO, methods: PLATFORM_METHODS };
const EVM_RPC: RpcEndpoint = { label: '/ext/bc/{blockchainID}/rpc', dialect: GETH, methods: EVM_METHODS };
const EVM_VALIDATORS: RpcEndpoint = { label: '/ext/bc/{blockchainID}/validators', dialect: AVALANCHEGO, methods: VALIDATORS_METHODS };

/** GET health endpoints: forwarded with their (repeatable) `tag` query; answers 200 or 503 pass through. */
function healthRoute(pattern: string): RestRoute {
  return { pattern: new PathPattern(pattern), upstream: 'node', shape: 'dataApi', cacheable: false, nodeSpecific: true, check: () => {} };
}
const HEALTH_GET = healthRoute('/ext/health');
const HEALTH_SUBPATHS = ['/ext/health/health', '/ext/health/readiness', '/ext/health/liveness'].map(healthRoute);

const PATTERNS = {
  x: new PathPattern('/ext/bc/X'),
  p: new PathPattern('/ext/bc/P'),
  info: new PathPattern('/ext/info'),
  rpc: new PathPattern('/ext/bc/{blockchainID}/rpc'),
  validators: new PathPattern('/ext/bc/{blockchainID}/validators'),
  chain: new PathPattern('/ext/bc/{blockchainID}'),
};

function blockchainId(value: string): Uint8Array | undefined {
  try {
    return parseCb58Id(value);
  } catch {
    return undefined;
  }
}

function isGet(req: Request): boolean {
  return req.method === 'GET' || req.method === 'HEAD';
}

function badChainId(gw: Gateway, res: Response, dialect: RpcDialect, label: string, rule: string): void {
  sendJson(res, 400, dialect.errorResponse(null, { code: -32600, message: `blockchainID must be ${rule}` }));
  gw.observe({ route: label, status: 400 });
}

/** Serves the request if it is for a node endpoint; false when no node route matches. */
export async function serveNode(gw: Gateway, pathname: string, req: Request, res: Response): Promise<boolean> {
  if (PATTERNS.x.match(pathname)) return serveRpc(gw, X_CHAIN, req, res).then(() => true);
  if (PATTERNS.p.match(pathname)) return serveRpc(gw, P_CHAIN, req, res).then(() => true);
  if (PATTERNS.info.match(pathname)) return serveRpc(gw, INFO, req, res).then(() => true);

  const health = HEALTH_GET.pattern.match(pathname);
  if (health) {
    if (isGet(req)) await serveRest(gw, HEALTH_GET, health, req, res);
    else await serveRpc(gw, HEALTH_RPC, req, res);
    return true;
  }
  for (const route of HEALTH_SUBPATHS) {
    const m = route.pattern.match(pathname);
    if (!m) continue;
    if (isGet(req)) await serveRest(gw, route, m, req, res);
    else {
      sendJson(res, 405, dataApiError(405, `${req.method} is not allowed here; use GET`), { allow: 'GET' });
      gw.observe({ route: route.pattern.pattern, status: 405 });
    }
    return true;
  }

  const rpc = PATTERNS.rpc.match(pathname);
  if (rpc) {
    const id = rpc.ok ? rpc.params.blockchainID : undefined;
    if (id === undefined || (id !== 'C' && !blockchainId(id))) badChainId(gw, res, GETH, EVM_RPC.label, 'a cb58 blockchain id or the alias C');
    else await serveRpc(gw, EVM_RPC, req, res);
    return true;
  }
  const validators = PATTERNS.validators.match(pathname);
  if (validators) {
    const id = validators.ok ? validators.params.blockchainID : undefined;
    if (id === undefined || !blockchainId(id)) badChainId(gw, res, AVALANCHEGO, EVM_VALIDATORS.label, 'a cb58 blockchain id');
    else await serveRpc(gw, EVM_VALIDATORS, req, res);
    return true;
  }
  const chain = PATTERNS.chain.match(pathname);
  if (chain) {
    const id = chain.ok ? chain.params.blockchainID : undefined;
    const bytes = id === undefined ? undefined : blockchainId(id);
    if (!bytes) badChainId(gw, res, AVALANCHEGO, AVM_INSTANCE.label, 'a cb58 blockchain id, X or P');
    // The P-Chain by its ID; any other ID is taken as an instance of the asset-chain VM (section 4.1).
    else await serveRpc(gw, bytesEqual(bytes, P_CHAIN_ID) ? P_CHAIN_BY_ID : AVM_INSTANCE, req, res);
    return true;
  }
  return false;
}
