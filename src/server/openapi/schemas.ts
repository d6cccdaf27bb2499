// The JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of warpgate's own request and answer
// bodies. The aggregation requests are built from each dialect's field names (dialects.ts), so
// the document names the fields the parser reads; the status report mirrors status/report.ts and
// is strict (no property it does not list), so a test that checks a real answer against it
// catches the two drifting apart.
import type { FieldNames } from '../dialects.js';

type Schema = Record<string, unknown>;

const hex = (what: string): Schema => ({ type: 'string', pattern: '^(0x)?([0-9a-fA-F]{2})*$', description: `${what}, hex (\`0x\` optional)` });
const percent = (description: string, dflt: number): Schema => ({ type: 'integer', minimum: 0, maximum: 100, default: dflt, description });
const decimal = (description: string): Schema => ({ type: 'string', pattern: '^[0-9]+$', description: `${description} (a decimal string: uint64 does not fit a JSON number)` });
const strict = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({ type: 'object', additionalProperties: false, required, properties });

/** /ready's and /status.json's peers.silent (service/silent-validators.ts). */
const SILENT_VALIDATORS: Schema = {
  type: 'array',
  description: "avalanchego validators that drop this service's requests without an answer (at most 20), with the likely reason and the remedy (docs/p2p.md)",
  items: strict({
    nodeId: { type: 'string' },
    pattern: { type: 'string', enum: ['chain', 'everything'], description: "'chain': answers other chains but never this one; 'everything': has answered no request at all" },
    chainId: { type: 'string', description: 'cb58 ID of the chain asked' },
    unansweredInARow: { type: 'integer', minimum: 1 },
    reason: { type: 'string' },
    remedy: { type: 'string' },
  }),
};
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });

/** A relayer route as /ready and the status page show it (relayer/ports.ts RouteState). */
const RELAYER_ROUTE: Schema = strict(
  {
    id: { type: 'string', description: '<source blockchain ID>-><destination blockchain ID>' },
    checkpoint: nullable({ type: 'integer', minimum: 0, description: 'every message in blocks at or below it has a durable state' }),
    head: nullable({ type: 'integer', minimum: 0, description: "the source's newest accepted block as last seen" }),
    held: { type: 'boolean', description: 'whether this relayer may deliver the route now (with Redis: holds its lease)' },
    inFlight: { type: 'integer', minimum: 0 },
    parked: { type: 'integer', minimum: 0 },
    problem: { type: 'string', description: 'why the route does not run (an RPC that does not answer, a chain not there yet)' },
  },
  ['id', 'checkpoint', 'head', 'held'],
);

/** The quorum options as `names` spell them: the POST body fields, and the txHash GET's query. */
export function quorumFields(names: FieldNames): Record<string, Schema> {
  const fields: Record<string, Schema> = {
    [names.signingSubnetId]: { type: 'string', description: "the subnet whose validators sign, hex or cb58; default: the source chain's subnet (platform.validatedBy), the Primary Network for P-Chain messages" },
    [names.quorumPercentage]: percent(
      `share of the signing subnet's weight that must sign${names.zeroQuorumMeansDefault ? '; 0 means the default, as icm-services reads it' : ''}`,
      67,
    ),
    [names.quorumPercentageBuffer]: percent(`extra weight collected when it comes in time; with ${names.quorumPercentage} at most 100`, 0),
  };
  const [height, ...aliases] = names.pChainHeight;
  fields[height] = {
    type: 'integer',
    minimum: 0,
    default: 0,
    description: `P-Chain height of the validator set; 0: the destination chain's epoch height when ${names.destinationBlockchainId} (or a Teleporter message) names one, else the proposed height`,
  };
  for (const alias of aliases) fields[alias] = { type: 'integer', minimum: 0, description: `the same as ${height}` };
  fields[names.destinationBlockchainId] = {
    type: 'string',
    description: "the chain that will verify the message, hex or cb58: signed at its current epoch's P-Chain height (ACP-181); default: a Teleporter message's destinationBlockchainID",
  };
  fields[names.timeoutMs] = { type: 'integer', minimum: 1, description: 'a shorter deadline for this request, ms; at most aggregation.deadlineMs' };
  return fields;
}

/** An aggregation request body in one dialect. */
export function aggregationRequest(names: FieldNames): Schema {
  return {
    type: 'object',
    description: `${names.message} or ${names.justification} (or both) must be given`,
    properties: {
      [names.message]: hex('the unsigned Warp message, or the data of an EVM SendWarpMessage log'),
      [names.justification]: hex('ACP-118 justification; alone, a subnet ID or an L1ValidatorRegistrationJustification determines the P-Chain message to sign'),
      ...quorumFields(names),
    },
    anyOf: [{ required: [names.message] }, { required: [names.justification] }],
  };
}

export const SCHEMAS: Record<string, Schema> = {
  DataApiError: {
    ...strict({
      message: { type: 'string', description: 'what is wrong, naming the field' },
      statusCode: { type: 'integer' },
      error: { type: 'string', description: 'the status reason phrase' },
    }),
    description: "The Data API's error shape (Glacier dialect and every other route of warpgate's own)",
  },
  IcmError: { ...strict({ error: { type: 'string', description: 'what is wrong, naming the field' } }), description: "icm-services' error shape" },
  GlacierSignedMessage: strict({ signedMessage: hex('the signed Warp message') }),
  IcmSignedMessage: strict({ 'signed-message': hex('the signed Warp message') }),
  Health: strict({ status: { const: 'ok' } }),
  Readiness: strict(
    {
      ready: { type: 'boolean' },
      reasons: { type: 'array', items: { type: 'string' }, description: 'why not ready (in publicMode one line, the reasons withheld, and no subnets)' },
      subnets: {
        type: 'array',
        items: strict({
          subnetId: { type: 'string' },
          connectedWeight: decimal('weight of validators connected over either transport (a signer peer or an avalanchego connection)'),
          totalWeight: decimal("the subnet's total weight"),
          connectedPercent: { type: 'number' },
        }),
      },
      peers: strict({
        connected: strict({ ws: { type: 'integer', minimum: 0 }, p2p: { type: 'integer', minimum: 0 } }),
        p2p: {
          description: "the avalanchego transport: 'disabled' (p2p.enabled false or no upstreams.node), or its state",
          oneOf: [
            { const: 'disabled' },
            strict({
              state: { enum: ['waiting-for-node', 'running', 'closed'], description: 'waiting-for-node until info.getNetworkID answers' },
              nodeId: { type: 'string', description: "warpgate's NodeID on the peer network" },
              targets: { type: 'integer', minimum: 0 },
              connected: { type: 'integer', minimum: 0 },
              dialing: { type: 'integer', minimum: 0 },
              ioShards: { type: 'integer', minimum: 0, description: 'worker threads holding the connections (p2p.ioShards); 0: the main thread' },
            }),
          ],
        },
        silent: SILENT_VALIDATORS,
      }, ['connected', 'p2p']),
      sharedState: {
        type: 'string',
        description:
          "with redis.url: 'connected', or 'shared state unavailable: …' with why (Redis down, wrong password). Not a reason to be unready: the replica serves with its own cache and per-replica rate limits, and rejoins by itself",
      },
      relayer: strict({ ready: { type: 'boolean' }, routes: { type: 'array', items: RELAYER_ROUTE } }),
    },
    ['ready', 'reasons', 'subnets'],
  ),
  StatusReport: strict({
    version: { type: 'string' },
    startedAt: { type: 'string', format: 'date-time' },
    uptimeSeconds: { type: 'integer', minimum: 0 },
    refreshMs: { type: 'integer', minimum: 1, description: 'how often the status page asks again (status.refreshMs)' },
    ready: { type: 'boolean' },
    reasons: { type: 'array', items: { type: 'string' } },
    peers: strict({
      connected: { type: 'integer', minimum: 0 },
      byTransport: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
      silent: SILENT_VALIDATORS,
    }),
    subnets: { type: 'array', items: { $ref: '#/components/schemas/SubnetStatus' }, description: 'readiness.subnets, then the subnets signed for recently' },
    aggregations: strict({
      inFlight: { type: 'integer', minimum: 0 },
      total: { type: 'integer', minimum: 0, description: 'since the service started' },
      byOutcome: strict({ success: { type: 'integer' }, quorum_not_reached: { type: 'integer' }, error: { type: 'integer' } }),
      recent: { type: 'array', items: { $ref: '#/components/schemas/RecentAggregation' }, description: 'newest first, at most status.recentAggregations' },
      timeline: strict({
        intervalSeconds: { type: 'integer', minimum: 1 },
        intervals: {
          type: 'array',
          items: { $ref: '#/components/schemas/TimelineInterval' },
          description: 'the last 15 minutes, oldest first; the last is the current interval, still filling',
        },
      }),
    }),
    signatureCache: strict({
      messages: { type: 'integer' },
      signatures: { type: 'integer' },
      maxMessages: { type: 'integer' },
      maxSignatures: { type: 'integer' },
      hits: { type: 'integer' },
      misses: { type: 'integer' },
    }),
    workers: strict({ threads: { type: 'integer' }, queued: { type: 'integer', description: 'BLS tasks waiting for a thread' }, maxQueue: { type: 'integer' } }),
    sharedState: strict({
      state: { enum: ['disabled', 'connecting', 'connected', 'unavailable'], description: "the Redis replicas share (redis.url); 'disabled' without it" },
      reason: nullable({ type: 'string', description: "'shared state unavailable: …' with why; null when connected or disabled" }),
      sharedCacheHits: { type: 'integer', minimum: 0, description: 'reads of the shared signature cache that found signatures' },
      sharedCacheMisses: { type: 'integer', minimum: 0 },
      sharedCacheInvalid: { type: 'integer', minimum: 0, description: 'shared entries dropped: malformed, or failing their check (never a penalty)' },
      coalesced: strict({
        holder: { type: 'integer', minimum: 0, description: 'collected under the lease for an identical request' },
        waiter: { type: 'integer', minimum: 0, description: "answered from another replica's collection" },
        takeover: { type: 'integer', minimum: 0, description: 'leases taken over from a replica that died or stalled' },
      }),
      fallbacks: { type: 'integer', minimum: 0, description: 'operations done with local state because Redis could not be used' },
      commands: { type: 'integer', minimum: 0, description: 'Redis commands sent' },
    }),
    relayer: strict({
      routes: { type: 'array', items: RELAYER_ROUTE, description: 'present only when the config has relayer.routes' },
      delivered: { type: 'integer', minimum: 0, description: 'messages delivered since the start' },
      skipped: { type: 'integer', minimum: 0 },
      parked: { type: 'integer', minimum: 0, description: 'messages parked since the start (retried from the store on a slow schedule)' },
      retries: { type: 'integer', minimum: 0 },
      deliveredByOthers: { type: 'integer', minimum: 0, description: 'messages found delivered by another relayer' },
      takeovers: { type: 'integer', minimum: 0, description: 'route leases taken over from a relayer that stopped renewing (redis.url), since the start' },
      inFlightAtTakeover: { type: 'integer', minimum: 0, description: 'deliveries the previous holder had submitted and not finished, found at those takeovers (waited for, not sent again)' },
      lowBalanceKeys: {
        type: 'array',
        items: strict({ chain: { type: 'string' }, address: { type: 'string' }, balanceWei: decimal('the balance last read, in wei') }),
        description: 'delivery keys below relayer.lowBalanceGwei',
      },
    }),
  }, ['version', 'startedAt', 'uptimeSeconds', 'refreshMs', 'ready', 'reasons', 'peers', 'subnets', 'aggregations', 'signatureCache', 'workers', 'sharedState']),
  SubnetStatus: strict(
    {
      subnetId: { type: 'string' },
      tracked: { type: 'boolean', description: 'listed in readiness.subnets' },
      error: { type: 'string', description: 'the current set could not be read; the weights are those of the last set read' },
      totalWeight: decimal('total weight'),
      connectedWeight: decimal('weight of validators with a connected signer'),
      connectedPercent: { type: 'number' },
      quorumPercentage: { type: 'integer', description: 'readiness.quorumPercentage' },
      validatorCount: { type: 'integer' },
      connectedCount: { type: 'integer' },
      validators: { type: 'array', items: { $ref: '#/components/schemas/ValidatorStatus' }, description: 'the heaviest, at most status.validatorsPerSubnet' },
    },
    ['subnetId', 'tracked', 'quorumPercentage', 'validators'],
  ),
  ValidatorStatus: strict({
    nodeIds: { type: 'array', items: { type: 'string' } },
    publicKey: { type: 'string', description: 'compressed BLS public key, hex' },
    weight: decimal('weight'),
    weightPercent: { type: 'number' },
    connected: { type: 'boolean' },
    transport: nullable({ type: 'string' }),
    lastAnswer: nullable(
      strict({
        result: { enum: ['signature', 'refused', 'timeout', 'error'] },
        ms: { type: 'number', minimum: 0 },
        secondsAgo: { type: 'integer', minimum: 0 },
      }),
    ),
    penalties: { type: 'integer', minimum: 0, description: 'invalid signatures since the service started' },
  }),
  TimelineInterval: strict({
    start: { type: 'string', format: 'date-time' },
    success: { type: 'integer', minimum: 0 },
    quorum_not_reached: { type: 'integer', minimum: 0 },
    error: { type: 'integer', minimum: 0 },
    p50Ms: nullable({ type: 'number', minimum: 0, description: 'median latency of the successes (within 5%); null when none' }),
    p99Ms: nullable({ type: 'number', minimum: 0, description: '99th percentile latency of the successes (within 5%); null when none' }),
  }),
  RecentAggregation: strict({
    at: { type: 'string', format: 'date-time' },
    subnetId: nullable({ type: 'string' }),
    outcome: { enum: ['success', 'quorum_not_reached', 'error'] },
    ms: { type: 'number', minimum: 0, description: 'from its arrival at the aggregator to its result' },
    idealMs: nullable({ type: 'number', minimum: 0, description: 'the time the signers took: from the first request until the signatures completing the target weight had arrived' }),
    signers: nullable({ type: 'integer', minimum: 1 }),
    signedWeight: nullable(decimal('signed weight')),
    totalWeight: nullable(decimal('total weight')),
    error: nullable({ type: 'string', description: "an error's kind (its class name)" }),
  }),
};
