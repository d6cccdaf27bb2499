// The express app: aggregation endpoints in both dialects, health, readiness, metrics, and the
// forwarded read endpoints. Errors never leak a stack: every route family renders HttpErrors in
// its own documented shape and anything unexpected as a logged 500 with a generic message.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { bytesToHex } from '../warp/hex.js';
import type { Aggregator, AggregationRequest } from '../aggregator/aggregator.js';
import type { Deadline } from '../aggregator/deadline.js';
import { DeadlineExceededError, NoSigningValidatorsError, QuorumNotReachedError } from '../aggregator/errors.js';
import { BlsPoolClosedError } from '../bls-pool/errors.js';
import { OverloadedError } from '../util/overloaded.js';
import { LookbackExceededError } from '../validators/errors.js';
import { NodeError, UnfinalizedHeightError, UnknownChainError, UnknownSubnetError, type NodeErrorKind } from '../node/errors.js';
import { L1RequestError, type L1RequestErrorKind } from '../l1/errors.js';
import { dataApiError } from '../proxy/error-shapes.js';
import { RateLimiter } from '../util/rate-limit.js';
import { clientAddress } from '../proxy/client-identity.js';
import type { Config } from '../config/config.js';
import type { Metrics } from './metrics.js';
import { BadRequestError, HttpError } from './http-errors.js';
import { bodyParserProblem } from './body-errors.js';
import {
  GLACIER_FIELDS,
  ICM_FIELDS,
  checkMessageNetwork,
  networkIdOf,
  parseAggregationBody,
  requireNetwork,
  toAggregationRequest,
  type FieldNames,
  type ParsedBody,
  type ServedNetwork,
} from './aggregation-request.js';

/**
 * Builds the message from a justification alone, or from a P-Chain transaction (the L1 messages
 * issue). `signal` is the request's deadline: P-Chain reads stop waiting when it aborts.
 */
export interface L1MessageBuilder {
  fromJustification(parsed: ParsedBody, networkId: number | undefined, opts?: { signal?: AbortSignal }): Promise<AggregationRequest | null>;
  fromTransaction(network: string, txHash: string, query: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<AggregationRequest>;
}

export interface AppDeps {
  config: Config;
  aggregator: Aggregator;
  metrics: Metrics;
  logger: Logger;
  readiness: () => Promise<{ ready: boolean; reasons: string[]; subnets: unknown[] }>;
  proxyRouter?: Router;
  l1?: L1MessageBuilder;
  /** The node's network ID (info.getNetworkID); absent when no node is configured. */
  nodeNetworkId?: () => Promise<number>;
}

type Dialect = 'glacier' | 'icm';

/** A node call that failed: 504 when it timed out, 503 when the node cannot be reached, 502 for a bad or error answer. */
const NODE_ERROR_STATUS: Record<NodeErrorKind, 502 | 503 | 504> = { timeout: 504, unreachable: 503, rpc: 502, 'bad-response': 502 };

/** What is wrong with a request for a P-Chain L1 message: a thing that is not there (404) or a mistake in the request (400). */
const L1_REQUEST_STATUS: Record<L1RequestErrorKind, 400 | 404> = {
  'not-found': 404,
  uncommitted: 404,
  'not-converted': 404,
  'wrong-tx-type': 400,
  'bad-justification': 400,
};

/** How the request named its P-Chain height field, for messages about the height. */
const HEIGHT_FIELD: Record<Dialect, string> = { glacier: 'pChainHeight', icm: 'pchain-height' };

/**
 * Maps any error to a status and a message fit for a client. `heightField` is the request's
 * name of the P-Chain height, which messages about the height start with.
 */
export function classifyError(err: unknown, heightField = HEIGHT_FIELD.glacier): { status: number; message: string; headers: Record<string, string>; expected: boolean } {
  const answer = (status: number, message: string, headers: Record<string, string> = {}) => ({ status, message, headers, expected: true });
  if (err instanceof HttpError) return { status: err.status, message: err.message, headers: err.headers, expected: true };
  if (err instanceof OverloadedError) return answer(503, err.clientMessage, { 'retry-after': String(err.retryAfterSeconds) });
  // Shutting down: another instance (or this one, restarted) can take the retry.
  if (err instanceof BlsPoolClosedError) return answer(503, err.message);
  // Signers missing now may be back in a moment (peers redial), and what was verified is cached.
  if (err instanceof QuorumNotReachedError) return answer(503, err.message, { 'retry-after': '1' });
  if (err instanceof DeadlineExceededError) return answer(504, err.message);
  // A client's own mistakes: permanent, so 4xx (a 5xx would invite retries).
  if (err instanceof UnfinalizedHeightError || err instanceof LookbackExceededError) return answer(400, `${heightField}: ${err.message}`);
  if (err instanceof NoSigningValidatorsError) return err.pChainHeight === 0 ? answer(503, err.message) : answer(400, `${heightField}: ${err.message}`);
  if (err instanceof UnknownChainError || err instanceof UnknownSubnetError) return answer(404, err.message);
  if (err instanceof L1RequestError) return answer(L1_REQUEST_STATUS[err.kind], err.message);
  if (err instanceof NodeError) return answer(NODE_ERROR_STATUS[err.kind], err.message);
  const body = bodyParserProblem(err);
  if (body) return { status: body.status, message: body.message, headers: {}, expected: true };
  return { status: 500, message: 'internal error', headers: {}, expected: false };
}

function renderError(res: Response, dialect: Dialect, err: unknown, logger: Logger): void {
  const c = classifyError(err, HEIGHT_FIELD[dialect]);
  if (!c.expected) logger.error({ err }, 'unexpected error');
  for (const [k, v] of Object.entries(c.headers)) res.setHeader(k, v);
  res.status(c.status).json(dialect === 'glacier' ? dataApiError(c.status, c.message) : { error: c.message });
}

export function createApp(deps: AppDeps): express.Express {
  const { config, aggregator, metrics, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
        res.setHeader('x-request-id', id);
        return id;
      },
      // One line per request: method, path, status, time. No bodies, no API keys.
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/metrics' },
    }),
  );

  app.use((req, res, next) => {
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? (res.statusCode === 404 ? 'unmatched' : 'forwarded');
      metrics.httpRequests.inc({ route: String(route), status: String(res.statusCode) });
    });
    next();
  });

  if (config.cors.origins.length > 0) {
    const any = config.cors.origins.includes('*');
    app.use((req, res, next) => {
      const origin = req.headers.origin;
      if (origin && (any || config.cors.origins.includes(origin))) {
        res.setHeader('access-control-allow-origin', any ? '*' : origin);
        res.setHeader('vary', 'Origin');
        res.setHeader('access-control-allow-headers', 'content-type, x-glacier-api-key, x-data-api-key');
        res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
      }
      if (req.method === 'OPTIONS') return void res.status(204).end();
      next();
    });
  }

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/ready', async (_req, res) => {
    try {
      const r = await deps.readiness();
      res.status(r.ready ? 200 : 503).json(r);
    } catch (err) {
      res.status(503).json({ ready: false, reasons: [err instanceof Error ? err.message : String(err)], subnets: [] });
    }
  });

  app.get('/metrics', async (_req, res) => {
    res.setHeader('content-type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  const json = express.json({ limit: config.limits.bodyBytes, type: () => true, strict: false });

  // Aggregations cost every validator a signature and the node its validator sets: per client IP,
  // whatever API key it sends (no upstream checks keys here, so an invented one would buy more).
  const aggregationBudget = config.rateLimit.aggregationsPerMinute > 0 ? new RateLimiter({ requestsPerMinute: config.rateLimit.aggregationsPerMinute }) : undefined;
  const limitAggregations = (req: Request, _res: Response, next: NextFunction): void => {
    const budget = aggregationBudget?.take(`ip ${clientAddress(req)}`);
    if (budget && !budget.ok) {
      const s = String(budget.retryAfterSeconds);
      return next(new HttpError(429, `rate limit exceeded: at most ${config.rateLimit.aggregationsPerMinute} aggregation requests a minute per client; retry in ${s} s`, { 'retry-after': s }));
    }
    next();
  };

  /** Runs one request's work within its deadline, counted from now. */
  const withinDeadline = async <T>(work: (deadline: Deadline) => Promise<T>): Promise<T> => {
    const deadline = aggregator.startDeadline();
    try {
      return await work(deadline);
    } finally {
      deadline.dispose();
    }
  };

  const served: ServedNetwork = { localNetworkId: config.localNetworkId, nodeNetworkId: deps.nodeNetworkId };

  const aggregate = async (req: Request, dialect: Dialect, names: FieldNames, deadline: Deadline): Promise<Uint8Array> => {
    const network = dialect === 'glacier' ? String(req.params.network) : undefined;
    if (network !== undefined) requireNetwork(network);
    const parsed = parseAggregationBody(req.body, names, config.limits.justificationBytes);
    let request: AggregationRequest | null = null;
    if (parsed.messageHex !== undefined) {
      request = toAggregationRequest(parsed, names, parsed.messageHex);
    } else if (deps.l1) {
      deadline.phase = `the P-Chain was being read for the message the ${names.justification} determines`;
      request = await deps.l1.fromJustification(parsed, network === undefined ? undefined : networkIdForPath(network, config), { signal: deadline.signal });
    }
    if (!request) {
      throw new BadRequestError(names.message, `is required: the ${names.justification} given does not determine a message (only a subnet ID or an L1ValidatorRegistrationJustification does)`);
    }
    deadline.phase = "the node's network ID was being read (info.getNetworkID)";
    await checkMessageNetwork(request.message.networkId, served, network, deadline.signal);
    const result = await aggregator.aggregate(request, { deadline });
    return result.signedMessage;
  };

  app.post('/v1/signatureAggregator/:network/aggregateSignatures', limitAggregations, json, async (req, res) => {
    try {
      const signed = await withinDeadline((deadline) => aggregate(req, 'glacier', GLACIER_FIELDS, deadline));
      res.status(201).json({ signedMessage: bytesToHex(signed) });
    } catch (err) {
      renderError(res, 'glacier', err, req.log ?? logger);
    }
  });

  app.get('/v1/signatureAggregator/:network/aggregateSignatures/:txHash', limitAggregations, async (req, res) => {
    try {
      if (!deps.l1) throw new HttpError(404, 'P-Chain transaction messages are not served here');
      const l1 = deps.l1;
      const network = String(req.params.network);
      const signed = await withinDeadline(async (deadline) => {
        deadline.phase = 'the P-Chain transaction was being read';
        const request = await l1.fromTransaction(network, String(req.params.txHash), req.query as Record<string, unknown>, { signal: deadline.signal });
        deadline.phase = "the node's network ID was being read (info.getNetworkID)";
        await checkMessageNetwork(request.message.networkId, served, network, deadline.signal);
        return (await aggregator.aggregate(request, { deadline })).signedMessage;
      });
      res.status(201).json({ signedMessage: bytesToHex(signed) });
    } catch (err) {
      renderError(res, 'glacier', err, req.log ?? logger);
    }
  });

  app.post('/aggregate-signatures', limitAggregations, json, async (req, res) => {
    try {
      const signed = await withinDeadline((deadline) => aggregate(req, 'icm', ICM_FIELDS, deadline));
      res.status(200).json({ 'signed-message': bytesToHex(signed) });
    } catch (err) {
      renderError(res, 'icm', err, req.log ?? logger);
    }
  });

  if (deps.proxyRouter) app.use(deps.proxyRouter);

  app.use((req, res) => {
    res.status(404).json(dataApiError(404, `no route for ${req.method} ${req.path}`));
  });

  // Errors thrown before a route's own handler (body parsing: malformed JSON, 413).
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const dialect: Dialect = req.path === '/aggregate-signatures' ? 'icm' : 'glacier';
    renderError(res, dialect, err, req.log ?? logger);
  });

  return app;
}

/** The network a message built by the service is for: a configured local network wins (the devnet). */
function networkIdForPath(network: string, config: Config): number | undefined {
  return config.localNetworkId ?? networkIdOf(network);
}
