// The OpenAPI 3.1 document of warpgate's own endpoints, served at GET /openapi.json: both
// aggregation dialects, the txHash GET, health, readiness, metrics, the status page and its JSON,
// with each dialect's error shape for every status it answers with. The forwarded read endpoints
// (Data API, Metrics API, node) are those APIs' own and are not repeated here. A test holds it to
// the app's routes both ways and checks real answers against its schemas.
import { GLACIER, ICM, ICM_PATH, type Dialect } from '../dialects.js';
import { NETWORK_NAMES } from '../network.js';
import { aggregationRequest, quorumFields, SCHEMAS } from './schemas.js';

interface DocumentOptions {
  version: string;
  /** Whether this instance serves the status page (not in publicMode). */
  statusPage: boolean;
  /** Whether /metrics is served on this port (metricsOnMainPort). */
  metrics: boolean;
  /** Where signer peers dial in (a WebSocket, which OpenAPI does not describe); not told in publicMode. */
  peerPath: string | undefined;
}

type Operation = Record<string, unknown>;

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown): Operation => ({ content: { 'application/json': { schema } } });
const retryAfter = { 'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } };
/** On every signed message: the P-Chain height whose validator set signed, and where it came from. */
const signedAt = {
  'x-warpgate-pchain-height': { description: 'the P-Chain height whose validator set signed', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'x-warpgate-pchain-height-source': { description: 'explicit (the request), epoch (the destination chain), proposed (platform.getProposedHeight)', schema: { enum: ['explicit', 'epoch', 'proposed'] } },
};

/** Every status an aggregation can end with besides its success, and why. */
const AGGREGATION_ERRORS: [status: string, why: string, body: boolean][] = [
  ['400', 'a mistake in the request, naming the field: the {network} path value, a field, a P-Chain height above the current one or more than validatorSets.maxLookback below it, a message for another network', false],
  ['403', 'the signing subnet is not in aggregation.allowedSigningSubnets; no validator was asked', false],
  ['404', 'the source chain, the signing subnet or the transaction is not known to the P-Chain', false],
  ['413', 'the body is larger than limits.bodyBytes, or the justification than limits.justificationBytes', true],
  ['415', 'a body in a content encoding or charset that is not accepted', true],
  ['429', 'more than rateLimit.aggregationsPerMinute requests a minute from this client; Retry-After says when to retry', false],
  ['500', 'unexpected; the detail is in the log only', false],
  ['502', "the node answered with an error or an answer that could not be read, or the destination chain's epoch could not be read (the message names the chain)", false],
  ['503', 'quorum not reached by the deadline (Retry-After: 1; the message has the weight reached, the weight required and the counts), too many aggregations at once (Retry-After), no node configured or reachable, or no validator with a BLS key in the current set', false],
  ['504', 'the deadline (aggregation.deadlineMs, from the request\'s arrival) passed, or a node call timed out', false],
];

function errorResponses(dialect: Dialect, hasBody: boolean): Record<string, Operation> {
  const schema = ref(dialect === ICM ? 'IcmError' : 'DataApiError');
  return Object.fromEntries(
    AGGREGATION_ERRORS.filter(([, , needsBody]) => hasBody || !needsBody).map(([status, why]) => [
      status,
      { description: why, ...json(schema), ...(status === '429' || status === '503' ? { headers: retryAfter } : {}) },
    ]),
  );
}

function aggregationPost(dialect: Dialect, summary: string, success: { status: string; schema: string }): Operation {
  return {
    tags: ['aggregation'],
    operationId: dialect === ICM ? 'aggregateSignaturesIcm' : 'aggregateSignatures',
    summary,
    requestBody: { required: true, ...json(aggregationRequest(dialect.fields)) },
    responses: { [success.status]: { description: 'the signed message', headers: signedAt, ...json(ref(success.schema)) }, ...errorResponses(dialect, true) },
  };
}

const networkParameter = {
  name: 'network',
  in: 'path',
  required: true,
  description: 'must name the message\'s network; a configured localNetworkId (the devnet\'s) is accepted under any of them',
  schema: { enum: NETWORK_NAMES },
};

function txHashGet(): Operation {
  const query = Object.entries(quorumFields(GLACIER.fields)).map(([name, schema]) => ({ name, in: 'query', required: false, schema }));
  return {
    tags: ['aggregation'],
    operationId: 'aggregateTransactionMessage',
    summary: 'Sign the L1 message a P-Chain transaction determines',
    description:
      'ConvertSubnetToL1Tx → SubnetToL1Conversion, RegisterL1ValidatorTx → L1ValidatorRegistration(true), SetL1ValidatorWeightTx → L1ValidatorWeight; signed by the L1 the transaction concerns unless signingSubnetId says otherwise.',
    parameters: [networkParameter, { name: 'txHash', in: 'path', required: true, description: 'cb58 ID of a committed P-Chain transaction', schema: { type: 'string' } }, ...query],
    responses: { '201': { description: 'the signed message', headers: signedAt, ...json(ref('GlacierSignedMessage')) }, ...errorResponses(GLACIER, false) },
  };
}

function statusPaths(): Record<string, Record<string, Operation>> {
  return {
    '/': { get: { tags: ['status'], operationId: 'root', summary: 'Redirects to the status page', responses: { '302': { description: 'to /status', headers: { Location: { schema: { const: '/status' } } } } } } },
    '/status': {
      get: {
        tags: ['status'],
        operationId: 'statusPage',
        summary: 'The status page: one self-contained HTML page that draws /status.json',
        responses: { '200': { description: 'the page', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
    '/status.json': {
      get: {
        tags: ['status'],
        operationId: 'status',
        summary: 'What the status page shows: connected stake against quorum, validators, the last aggregations, cache and worker queue',
        description: 'No secret and no client address. Everyone who asks within status.refreshMs gets the same look.',
        responses: {
          '200': { description: 'the status', ...json(ref('StatusReport')) },
          '503': { description: 'the status could not be gathered', ...json(ref('DataApiError')) },
        },
      },
    },
  };
}

const metricsPath = {
  '/metrics': {
    get: {
      tags: ['operations'],
      operationId: 'metrics',
      summary: 'Prometheus metrics (docs/grafana/warpgate.json draws them)',
      responses: { '200': { description: 'the exposition', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
};

export function openApiDocument(opts: DocumentOptions): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'warpgate',
      version: opts.version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        "A self-hosted Avalanche Warp signature aggregator. These are its own endpoints: the Data API's (Glacier's) aggregation dialect and icm-services', the operations endpoints and the status page. " +
        `Errors come in each dialect's shape: {"error"} on ${ICM_PATH}, the Data API's {"message", "statusCode", "error"} elsewhere. ` +
        "The forwarded read endpoints (Data API, Metrics API, a node's JSON-RPC) are documented by those APIs" +
        (opts.peerPath === undefined ? '.' : `; signer peers dial in over a WebSocket at ${opts.peerPath}.`) +
        (opts.statusPage ? '' : ' This instance runs in publicMode: it serves no status page.') +
        (opts.metrics ? '' : ' /metrics is not served on this port.'),
    },
    tags: [
      { name: 'aggregation', description: 'signature aggregation' },
      { name: 'operations', description: 'health, readiness, metrics and this document' },
      ...(opts.statusPage ? [{ name: 'status', description: 'the status page for operators' }] : []),
    ],
    paths: {
      '/v1/signatureAggregator/{network}/aggregateSignatures': {
        post: { ...aggregationPost(GLACIER, 'Aggregate signatures (Data API dialect)', { status: '201', schema: 'GlacierSignedMessage' }), parameters: [networkParameter] },
      },
      '/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}': { get: txHashGet() },
      [ICM_PATH]: { post: aggregationPost(ICM, "Aggregate signatures (icm-services' dialect)", { status: '200', schema: 'IcmSignedMessage' }) },
      '/health': { get: { tags: ['operations'], operationId: 'health', summary: 'Liveness: the process answers', responses: { '200': { description: 'alive', ...json(ref('Health')) } } } },
      '/ready': {
        get: {
          tags: ['operations'],
          operationId: 'ready',
          summary: "Readiness: the node answers and the validators connected over either transport hold readiness.quorumPercentage of each readiness.subnets entry's weight",
          responses: { '200': { description: 'ready', ...json(ref('Readiness')) }, '503': { description: 'not ready, with the reasons', ...json(ref('Readiness')) } },
        },
      },
      ...(opts.metrics ? metricsPath : {}),
      '/openapi.json': {
        get: { tags: ['operations'], operationId: 'openapi', summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1', ...json({ type: 'object' }) } } },
      },
      ...(opts.statusPage ? statusPaths() : {}),
    },
    components: { schemas: SCHEMAS },
  };
}
