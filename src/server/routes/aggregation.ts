// The aggregation endpoints: POST …/{network}/aggregateSignatures (Data API dialect), POST
// /aggregate-signatures (icm-services'), and GET …/aggregateSignatures/{txHash} (the L1 message
// a P-Chain transaction determines). Each is rate-limited per client, parsed, checked against
// the network served and aggregated within one deadline that starts at its arrival (shorter
// when the client's timeoutMs says so).
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Aggregator, AggregationRequest, AggregationResult } from '../../aggregator/aggregator.js';
import type { Deadline } from '../../aggregator/deadline.js';
import type { Config } from '../../config/config.js';
import { clientAddress } from '../../proxy/client-identity.js';
import { localBudgets, type BudgetFactory } from '../../util/rate-limit.js';
import { idToString } from '../../warp/cb58.js';
import { parseAggregationBody, parseTxRequest, toAggregationRequest } from '../aggregation-request.js';
import { GLACIER, ICM, ICM_PATH, type Dialect } from '../dialects.js';
import { BadRequestError, HttpError, sendError } from '../errors.js';
import { checkMessageNetwork, networkIdForPath, requireNetwork, type ServedNetwork } from '../network.js';
import type { QuorumOptions } from '../quorum-options.js';

/**
 * Builds the message a justification alone determines, or a P-Chain transaction's L1 message.
 * `signal` is the request's deadline: P-Chain reads stop waiting when it aborts.
 */
export interface L1MessageBuilder {
  fromJustification(justification: Uint8Array, options: QuorumOptions, networkId: number | undefined, opts?: { signal?: AbortSignal }): Promise<AggregationRequest | null>;
  fromTransaction(txId: Uint8Array, networkId: number, options: QuorumOptions, opts?: { signal?: AbortSignal }): Promise<AggregationRequest>;
}

/** The P-Chain height whose validator set signed, and where it came from (explicit, epoch, proposed). */
const PCHAIN_HEIGHT_HEADER = 'x-warpgate-pchain-height';
const HEIGHT_SOURCE_HEADER = 'x-warpgate-pchain-height-source';

export interface AggregationRouteDeps {
  config: Config;
  aggregator: Aggregator;
  logger: Logger;
  l1?: L1MessageBuilder;
  /** The node's network ID (info.getNetworkID); absent when no node is configured. */
  nodeNetworkId?: () => Promise<number>;
  /** Where rate-limit budgets are kept: in this process, or shared by replicas (redis.url). */
  budgets?: BudgetFactory;
}

export function mountAggregationRoutes(app: Express, deps: AggregationRouteDeps): void {
  const { config, aggregator, logger, l1 } = deps;
  const json = express.json({ limit: config.limits.bodyBytes, type: () => true, strict: false });
  const served: ServedNetwork = { localNetworkId: config.localNetworkId, nodeNetworkId: deps.nodeNetworkId };

  // Aggregations cost every validator a signature and the node its validator sets: per client IP,
  // whatever API key it sends (no upstream checks keys here, so an invented one would buy more).
  const perMinute = config.rateLimit.aggregationsPerMinute;
  const budget = perMinute > 0 ? (deps.budgets ?? localBudgets)('aggregations', perMinute) : undefined;
  const limitAggregations = async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    // A shared budget never rejects: without Redis it is charged locally.
    const taken = await budget?.take(`ip ${clientAddress(req)}`);
    if (taken && !taken.ok) {
      const s = String(taken.retryAfterSeconds);
      return next(new HttpError(429, `rate limit exceeded: at most ${perMinute} aggregation requests a minute per client; retry in ${s} s`, { 'retry-after': s }));
    }
    next();
  };

  /**
   * Answers one request in `dialect`: `parse` reads it (at once: a client's timeoutMs sets its
   * deadline, counted from now), then `work` builds the aggregation request within that deadline.
   * The answer says which P-Chain height signed (x-warpgate-pchain-height), as the request's log
   * line does.
   */
  const answer = async <P extends { options: QuorumOptions }>(
    req: Request,
    res: Response,
    dialect: Dialect,
    parse: () => P,
    work: (parsed: P, deadline: Deadline) => Promise<AggregationRequest>,
  ): Promise<void> => {
    try {
      const parsed = parse();
      const deadline = aggregator.startDeadline(parsed.options.timeoutMs);
      let result: AggregationResult;
      try {
        const request = await work(parsed, deadline);
        result = await aggregator.aggregate(request, { deadline });
      } finally {
        deadline.dispose();
      }
      const { status, body } = dialect.answer(result.signedMessage);
      res.setHeader(PCHAIN_HEIGHT_HEADER, String(result.pChainHeight));
      res.setHeader(HEIGHT_SOURCE_HEADER, result.heightSource);
      res.locals.aggregation = {
        pChainHeight: result.pChainHeight,
        pChainHeightSource: result.heightSource,
        ...(result.destinationBlockchainId ? { destinationBlockchainId: idToString(result.destinationBlockchainId) } : {}),
        signers: result.signers.length,
      };
      res.status(status).json(body);
    } catch (err) {
      sendError(res, dialect, err, req.log ?? logger);
    }
  };

  /** A POST body's request; `network` is the Glacier path's. */
  const parseBody = (req: Request, names: Dialect['fields'], network: string | undefined) => {
    if (network !== undefined) requireNetwork(network);
    const body = parseAggregationBody(req.body, names, config.limits.justificationBytes);
    return { body, options: body };
  };

  const fromBody = async (parsed: ReturnType<typeof parseBody>, names: Dialect['fields'], network: string | undefined, deadline: Deadline): Promise<AggregationRequest> => {
    const { body } = parsed;
    let request: AggregationRequest | null = null;
    if (body.messageHex !== undefined) {
      request = toAggregationRequest(body, names, body.messageHex);
    } else if (l1) {
      deadline.phase = `the P-Chain was being read for the message the ${names.justification} determines`;
      const networkId = network === undefined ? undefined : networkIdForPath(network, served);
      request = await l1.fromJustification(body.justification, body, networkId, { signal: deadline.signal });
    }
    if (!request) {
      throw new BadRequestError(names.message, `is required: the ${names.justification} given does not determine a message (only a subnet ID or an L1ValidatorRegistrationJustification does)`);
    }
    deadline.phase = "the node's network ID was being read (info.getNetworkID)";
    await checkMessageNetwork(request.message.networkId, served, network, deadline.signal);
    return request;
  };

  app.post('/v1/signatureAggregator/:network/aggregateSignatures', limitAggregations, json, (req, res) => {
    const network = String(req.params.network);
    return answer(
      req,
      res,
      GLACIER,
      () => parseBody(req, GLACIER.fields, network),
      (parsed, deadline) => fromBody(parsed, GLACIER.fields, network, deadline),
    );
  });

  app.get('/v1/signatureAggregator/:network/aggregateSignatures/:txHash', limitAggregations, (req, res) => {
    const network = String(req.params.network);
    return answer(
      req,
      res,
      GLACIER,
      () => {
        if (!l1) throw new HttpError(404, 'P-Chain transaction messages are not served here');
        const tx = parseTxRequest(network, String(req.params.txHash), req.query as Record<string, unknown>, GLACIER.fields);
        return { tx, builder: l1, options: tx.options };
      },
      async ({ tx, builder }, deadline) => {
        deadline.phase = 'the P-Chain transaction was being read';
        const request = await builder.fromTransaction(tx.txId, tx.networkId, tx.options, { signal: deadline.signal });
        deadline.phase = "the node's network ID was being read (info.getNetworkID)";
        await checkMessageNetwork(request.message.networkId, served, network, deadline.signal);
        return request;
      },
    );
  });

  app.post(ICM_PATH, limitAggregations, json, (req, res) =>
    answer(
      req,
      res,
      ICM,
      () => parseBody(req, ICM.fields, undefined),
      (parsed, deadline) => fromBody(parsed, ICM.fields, undefined, deadline),
    ),
  );
}
