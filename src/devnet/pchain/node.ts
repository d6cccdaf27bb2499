// A simulated avalanchego node over HTTP: the P-Chain at /ext/bc/P, info at /ext/info, health
// at /ext/health and the L1 chain's ProposerVM (its ACP-181 epoch) at /ext/bc/{chainID}/proposervm,
// serving a devnet genesis (protocol.md sections 5, 6 and 8); /ext/devnet advances the epoch. It is a real
// server on a real socket so that clients exercise their whole HTTP path, and it can be told to
// fail (down, slow, erroring) so tests can watch a client cope with a bad node.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { loadBackend } from '../../bls/index.js';
import type { BlsBackend } from '../../bls/types.js';
import { cb58Encode, P_CHAIN_ID } from '../../warp/cb58.js';
import type { DevnetGenesis } from '../genesis/types.js';
import { stringifyJson } from './go-json.js';
import { healthReport, healthService, infoService, type InfoPeer } from './info-service.js';
import { JsonRpcError } from './json-rpc-errors.js';
import { sendAnswer, serveJsonRpc, serviceMap, type JsonRpcService } from './json-rpc-server.js';
import { platformService } from './platform-service.js';
import { devnetService, DevnetEpochs, proposerVmService } from './proposervm-service.js';
import { PChainState } from './state.js';

/** null: healthy. down: connections close unanswered. slow: answers wait. error: every call fails. */
type NodeFault = null | 'down' | 'slow' | 'error';

const DEFAULT_SLOW_DELAY_MS = 1_000;
/** Delays are capped so a mistaken setFault cannot stall a test run. */
const MAX_SLOW_DELAY_MS = 60_000;
const DEFAULT_MAX_LOGGED_CALLS = 1_000;
/** The message every JSON-RPC call gets while the node is in the 'error' fault mode. */
export const SIMULATED_ERROR_MESSAGE = 'simulated failure: the node was told to fail (setFault("error"))';

interface PChainNodeOptions {
  genesis: DevnetGenesis;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Answer getValidatorsAt as older nodes did: `{validators: {"NodeID-…": weight}}`. */
  legacyValidatorsAtShape?: boolean;
  /** Size of the `calls` log (oldest dropped first). */
  maxLoggedCalls?: number;
  /** Backend for canonical ordering in getAllValidatorsAt; blst by default. */
  bls?: BlsBackend;
  /** What info.peers lists, read at each call: the devnet's simulated avalanchego validators. */
  peers?: () => readonly InfoPeer[];
  /** What info.getNodeVersion says (default avalanchego/1.14.0). */
  nodeVersion?: string;
  /** The P-Chain height of the L1 chain's first epoch; default one below the featured registration. */
  epochHeight?: number;
}

interface LoggedCall {
  method: string;
  params: unknown;
}

export interface SimulatedNode {
  /** `http://host:port`, no trailing slash; the P-Chain is at `${url}/ext/bc/P`. */
  readonly url: string;
  /** JSON-RPC calls received (any service), newest last, bounded. */
  readonly calls: LoggedCall[];
  readonly genesis: DevnetGenesis;
  /** Lookups over the genesis (validator sets, transactions, the signer policy's view). */
  readonly state: PChainState;
  /** The L1 chain's epoch (proposervm.getCurrentEpoch), and advancing it. */
  readonly epochs: DevnetEpochs;
  /** Changes how the node behaves from the next request on; `delayMs` is for 'slow'. */
  setFault(fault: NodeFault, delayMs?: number): void;
  /** Stops listening and drops every connection, pending slow answers included. */
  close(): Promise<void>;
}

const P_CHAIN_PATHS = new Set(['/ext/bc/P', '/ext/P', `/ext/bc/${cb58Encode(P_CHAIN_ID)}`]);
const HEALTH_GET_PATHS = new Set(['/ext/health/health', '/ext/health/readiness', '/ext/health/liveness']);

function notFound(res: ServerResponse): void {
  sendAnswer(res, { status: 404, contentType: 'text/plain; charset=utf-8', body: '404 page not found\n' });
}

/** Starts the node; resolves once it listens. */
export async function startPChainNode(options: PChainNodeOptions): Promise<SimulatedNode> {
  const { genesis, host = '127.0.0.1', port = 0 } = options;
  const maxCalls = Math.max(1, options.maxLoggedCalls ?? DEFAULT_MAX_LOGGED_CALLS);
  const state = new PChainState(genesis);
  const calls: LoggedCall[] = [];
  let fault: NodeFault = null;
  let slowDelayMs = DEFAULT_SLOW_DELAY_MS;
  let closed = false;
  const pendingDelays = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();

  const platform = platformService(state, {
    bls: options.bls ?? loadBackend(),
    ...(options.legacyValidatorsAtShape ? { legacyValidatorsAtShape: true } : {}),
  });
  const pchain = serviceMap(platform);
  const info = serviceMap(infoService(genesis, options.peers, options.nodeVersion));
  const epochs = new DevnetEpochs(genesis, options.epochHeight);
  const proposerVm = serviceMap(proposerVmService(genesis, epochs));
  const devnet = serviceMap(devnetService(epochs));
  const proposerVmPath = `/ext/bc/${cb58Encode(genesis.blockchainId)}/proposervm`;
  const health = serviceMap(healthService(() => fault !== 'error'));

  const hooks = {
    onCall(method: string, params: unknown): void {
      calls.push({ method, params });
      if (calls.length > maxCalls) calls.splice(0, calls.length - maxCalls);
    },
    override(): JsonRpcError | undefined {
      return fault === 'error' ? new JsonRpcError(SIMULATED_ERROR_MESSAGE) : undefined;
    },
  };

  /** Waits `ms`, or less if the node closes meanwhile. */
  const delay = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          pendingDelays.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      pendingDelays.add(entry);
    });

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const rpc = (services: ReadonlyMap<string, JsonRpcService>): Promise<void> => serveJsonRpc(req, res, services, hooks);
    if (P_CHAIN_PATHS.has(path)) return rpc(pchain);
    if (path === '/ext/info') return rpc(info);
    if (path === proposerVmPath) return rpc(proposerVm);
    if (path === '/ext/devnet') return rpc(devnet);
    if (path === '/ext/health' && req.method === 'GET') return healthGet(res);
    if (path === '/ext/health') return rpc(health);
    if (HEALTH_GET_PATHS.has(path)) {
      req.resume();
      return path.endsWith('/liveness') ? sendJson(res, 200, { checks: {}, healthy: true }) : healthGet(res);
    }
    req.resume();
    notFound(res);
  };

  const healthGet = (res: ServerResponse): void => {
    const healthy = fault !== 'error';
    sendJson(res, healthy ? 200 : 503, healthReport(healthy));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (fault === 'down') {
      req.socket.destroy();
      return;
    }
    if (fault === 'slow') {
      await delay(slowDelayMs);
      if (closed) {
        req.socket.destroy();
        return;
      }
    }
    await route(req, res);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // Only a bug gets here; answer like Go's net/http would rather than hang the client.
      if (!res.headersSent) {
        sendAnswer(res, { status: 500, contentType: 'text/plain; charset=utf-8', body: err instanceof Error ? err.message : String(err) });
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    if (fault === 'down') socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    calls,
    genesis,
    state,
    epochs,
    setFault(next: NodeFault, delayMs?: number): void {
      if (next !== null && next !== 'down' && next !== 'slow' && next !== 'error') {
        throw new TypeError(`setFault: unknown fault ${String(next)} (expected null, 'down', 'slow' or 'error')`);
      }
      if (delayMs !== undefined) {
        if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`setFault: delayMs must be a non-negative number, got ${delayMs}`);
        slowDelayMs = Math.min(delayMs, MAX_SLOW_DELAY_MS);
      }
      fault = next;
      if (next === 'down') server.closeIdleConnections();
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const entry of pendingDelays) {
        clearTimeout(entry.timer);
        entry.resolve();
      }
      pendingDelays.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  // Go's json.Encoder ends with a newline; GET health sets a bare application/json type.
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(`${stringifyJson(body)}\n`);
}
