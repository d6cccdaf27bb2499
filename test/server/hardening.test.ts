// What a hostile run found at the aggregation endpoints (issue 12), end to end over real HTTP:
// - the deadline bounds the whole request, P-Chain reads included, against a node that accepts
//   connections and never answers;
// - a client's mistakes (a height above the tip, older than the lookback bound, before the subnet
//   had validators; an unknown chain or subnet) are 4xx in the dialect's shape, not 5xx with the
//   node's text; 503 bodies never show the node's URL; quorum-not-reached carries Retry-After;
// - the justification has a size cap; the aggregation endpoints are rate-limited per client.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { HEIGHTS } from '../../src/devnet/genesis/index.js';
import { loadConfig } from '../../src/config/config.js';
import { startService, type Service } from '../../src/service/start.js';
import { l1MessageBuilder } from '../../src/service/l1-builder.js';
import { dataApiError } from '../../src/proxy/error-shapes.js';
import { cb58Encode } from '../../src/warp/cb58.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';

const silent = pino({ level: 'silent' });
const MAX_LOOKBACK = 100;

/** A node that accepts every connection and request and never answers. */
interface SilentNode {
  url: string;
  /** JSON-RPC methods received, in order. */
  methods: string[];
  /** Requests received and not yet given up by the client (still held here). */
  readonly holding: number;
  close(): Promise<void>;
}

async function startSilentNode(): Promise<SilentNode> {
  const methods: string[] = [];
  let holding = 0;
  const server: Server = createServer((req, res) => {
    holding++;
    res.on('close', () => holding--);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      try {
        methods.push(String((JSON.parse(body) as { method?: unknown }).method));
      } catch {
        methods.push(`${req.method} ${req.url}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    get holding() {
      return holding;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let devnet: Devnet;
let silentNode: SilentNode;
/** Its node never answers; the deadline is short and the node timeout far away. */
let stalled: Service;
/** The same silent node, and no localNetworkId: the node's network ID must be asked first. */
let unknownNetwork: Service;
/** The devnet's node but no signer peers: no quorum is ever reached. */
let bare: Service;
/** The devnet's node, three aggregation requests a minute per client. */
let limited: Service;

/**
 * A service under test. Its p2p transport is off: it would ask the node for its network ID in the
 * background, and these tests count the node calls each request makes.
 */
function service(overrides: Record<string, unknown>): Promise<Service> {
  return startService(loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', 'workers.threads': 1, 'p2p.enabled': false, ...overrides } }), {
    logger: silent,
    l1: l1MessageBuilder,
  });
}

beforeAll(async () => {
  silentNode = await startSilentNode();
  devnet = await startDevnet({
    validators: 4,
    port: 0,
    logger: silent,
    configOverrides: { 'aggregation.deadlineMs': 3_000, 'validatorSets.maxLookback': MAX_LOOKBACK },
  });
  [stalled, unknownNetwork, bare, limited] = await Promise.all([
    // localNetworkId 5: the messages' network is known without asking the node, so each test
    // below stalls on the P-Chain read it names.
    service({ 'upstreams.node': silentNode.url, localNetworkId: 5, 'aggregation.deadlineMs': 500, 'aggregation.requestTimeoutMs': 400, 'validatorSets.nodeTimeoutMs': 120_000 }),
    service({ 'upstreams.node': silentNode.url, 'aggregation.deadlineMs': 500, 'aggregation.requestTimeoutMs': 400 }),
    service({ 'upstreams.node': devnet.node.url, localNetworkId: devnet.genesis.networkId, 'rateLimit.aggregationsPerMinute': 0 }),
    service({ 'upstreams.node': devnet.node.url, localNetworkId: devnet.genesis.networkId, 'rateLimit.aggregationsPerMinute': 3 }),
  ]);
});

afterAll(async () => {
  await Promise.allSettled([stalled?.close(), unknownNetwork?.close(), bare?.close(), limited?.close()]);
  await devnet?.close();
  await silentNode?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

/** A generous wait for the answer: far beyond any deadline here, far below the node timeouts. */
const ANSWER_WAIT_MS = 20_000;

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_WAIT_MS) });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON; the text is kept
  }
  return { status: res.status, headers: res.headers, body, text };
}

function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const GLACIER = '/v1/signatureAggregator/fuji/aggregateSignatures';
const ICM = '/aggregate-signatures';

/** A message of the devnet's network from `chain`. */
function messageFrom(chain: Uint8Array, text: string, networkId = devnet.genesis.networkId): string {
  return bytesToHex(newUnsignedMessage(networkId, chain, encodeAddressedCall(devnet.genesis.managerAddress, new TextEncoder().encode(text))).bytes);
}

describe('the deadline bounds the whole request, P-Chain reads included', () => {
  // The silent node never answers and the P-Chain client's own timeout is 2 minutes (3 attempts):
  // an answer within ANSWER_WAIT_MS can only come from the 500 ms aggregation deadline.
  const fuji = (text: string): string => messageFrom(sha256(new TextEncoder().encode('a fuji chain')), text, 5);

  it('choosing the height (platform.getProposedHeight): 504 saying so though the node never answered; the slot is freed', async () => {
    const before = silentNode.methods.length;
    const subnet = cb58Encode(sha256(new TextEncoder().encode('a fuji subnet')));
    const answer = await post(stalled.url, GLACIER, { message: fuji('height'), signingSubnetId: subnet });
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual(dataApiError(504, 'the aggregation deadline of 500 ms passed while the P-Chain height to sign at was being read (platform.getProposedHeight)'));
    expect(silentNode.methods.slice(before)).toEqual(['platform.getProposedHeight']);
    expect(stalled.aggregator.active).toBe(0);
    // The read itself goes on (its own timeout) for whoever asks next: a retry joins it instead
    // of piling up another call on the node, and is answered at its own deadline.
    expect(silentNode.holding).toBe(1);
    const retry = await post(stalled.url, GLACIER, { message: fuji('height again'), signingSubnetId: subnet });
    expect(retry.status).toBe(504);
    expect(silentNode.methods.slice(before)).toEqual(['platform.getProposedHeight']);
  });

  it('reading the validator set at a height the client gave (the lookback bound reads the tip first)', async () => {
    const before = silentNode.methods.length;
    const holding = silentNode.holding;
    const subnet = cb58Encode(sha256(new TextEncoder().encode('a fuji subnet')));
    const answer = await post(stalled.url, GLACIER, { message: fuji('set read'), signingSubnetId: subnet, pChainHeight: 1_000 });
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual(dataApiError(504, 'the aggregation deadline of 500 ms passed while the validator set was being read from the P-Chain'));
    expect(silentNode.methods.slice(before)).toEqual(['platform.getHeight']);
    expect(stalled.aggregator.active).toBe(0);
    expect(silentNode.holding).toBe(holding + 1);
    const retry = await post(stalled.url, GLACIER, { message: fuji('set read again'), signingSubnetId: subnet, pChainHeight: 1_000 });
    expect(retry.status).toBe(504);
    expect(silentNode.methods.slice(before)).toEqual(['platform.getHeight']);
  });

  it('reading the signing subnet (platform.validatedBy), icm-services dialect', async () => {
    const before = silentNode.methods.length;
    const answer = await post(stalled.url, ICM, { message: fuji('validatedBy') });
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual({ error: 'the aggregation deadline of 500 ms passed while the signing subnet was being read from the P-Chain (platform.validatedBy)' });
    expect(silentNode.methods.slice(before)).toContain('platform.validatedBy');
  });

  it("reading the node's network ID (info.getNetworkID), which the network rule needs", async () => {
    const before = silentNode.methods.length;
    const answer = await post(unknownNetwork.url, ICM, { message: fuji('network id') });
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual({ error: "the aggregation deadline of 500 ms passed while the node's network ID was being read (info.getNetworkID)" });
    expect(silentNode.methods.slice(before)).toEqual(['info.getNetworkID']);
    expect(unknownNetwork.aggregator.active).toBe(0);
  });

  it('reading a P-Chain transaction (GET …/{txHash})', async () => {
    const txHash = cb58Encode(sha256(new TextEncoder().encode('some tx')));
    const answer = await call(`${stalled.url}${GLACIER}/${txHash}`);
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual(dataApiError(504, 'the aggregation deadline of 500 ms passed while the P-Chain transaction was being read'));
  });
});

describe('client mistakes are 4xx in the dialect’s shape', () => {
  const message = (text: string): string => devnet.exampleMessageHex(text);
  const subnetId = (): string => devnet.info.subnetId;

  it('a height above the P-Chain’s tip → 400 naming the field and the current height, not the node’s text', async () => {
    const height = HEIGHTS.current + 10_000;
    const g = await post(devnet.info.url, GLACIER, { message: message('too high'), pChainHeight: height });
    expect(g.status).toBe(400);
    expect(g.body).toEqual(dataApiError(400, `pChainHeight: ${height} is above the current P-Chain height ${HEIGHTS.current}: there is no validator set at that height yet`));
    const i = await post(devnet.info.url, ICM, { message: message('too high icm'), 'pchain-height': height });
    expect(i.status).toBe(400);
    expect(i.body).toEqual({ error: `pchain-height: ${height} is above the current P-Chain height ${HEIGHTS.current}: there is no validator set at that height yet` });
  });

  it('a height older than validatorSets.maxLookback → 400 stating the bound; the node is not asked for that set', async () => {
    const height = HEIGHTS.current - MAX_LOOKBACK - 1;
    const before = devnet.node.calls.length;
    const g = await post(devnet.info.url, GLACIER, { message: message('too old'), pChainHeight: height });
    expect(g.status).toBe(400);
    expect(g.body).toEqual(
      dataApiError(
        400,
        `pChainHeight: ${height} is more than ${MAX_LOOKBACK} heights below the current P-Chain height ${HEIGHTS.current}; ` +
          `this service reads validator sets back to height ${HEIGHTS.current - MAX_LOOKBACK} (0 asks for the current set)`,
      ),
    );
    expect(devnet.node.calls.slice(before).some((c) => c.method === 'platform.getValidatorsAt')).toBe(false);
    const i = await post(devnet.info.url, ICM, { message: message('too old icm'), 'p-chain-height': height });
    expect(i.status).toBe(400);
    expect(i.body.error).toMatch(new RegExp(`^pchain-height: ${height} is more than ${MAX_LOOKBACK} heights below`));
    // At the bound the set is read (the L1 had no validators that far back, hence that answer).
    const atBound = await post(devnet.info.url, GLACIER, { message: message('at the bound'), pChainHeight: HEIGHTS.current - MAX_LOOKBACK });
    expect(atBound.status).toBe(400);
    expect(atBound.body.message).toMatch(new RegExp(`had no validator with a BLS key at P-Chain height ${HEIGHTS.current - MAX_LOOKBACK} `));
  });

  it('a height before the subnet had validators → 400 (permanent), not 503', async () => {
    const height = HEIGHTS.conversion - 1;
    const g = await post(devnet.info.url, GLACIER, { message: message('before the L1'), pChainHeight: height });
    expect(g.status).toBe(400);
    expect(g.body).toEqual(
      dataApiError(400, `pChainHeight: subnet ${subnetId()} had no validator with a BLS key at P-Chain height ${height} (the subnet had no validators yet, or none left)`),
    );
  });

  it('a source chain the P-Chain does not know → 404, not 502', async () => {
    const chain = sha256(new TextEncoder().encode('no such chain'));
    const g = await post(devnet.info.url, GLACIER, { message: messageFrom(chain, 'unknown chain') });
    expect(g.status).toBe(404);
    expect(g.body).toEqual(dataApiError(404, `source chain ${cb58Encode(chain)} is not a blockchain the P-Chain knows`));
    const i = await post(devnet.info.url, ICM, { message: messageFrom(chain, 'unknown chain icm') });
    expect(i.status).toBe(404);
    expect(i.body).toEqual({ error: `source chain ${cb58Encode(chain)} is not a blockchain the P-Chain knows` });
  });

  it('a signing subnet the P-Chain does not know → 404, not 503', async () => {
    const stranger = cb58Encode(sha256(new TextEncoder().encode('no such subnet')));
    const g = await post(devnet.info.url, GLACIER, { message: message('unknown subnet'), signingSubnetId: stranger });
    expect(g.status).toBe(404);
    expect(g.body).toEqual(dataApiError(404, `subnet ${stranger} is not known to the P-Chain`));
    const i = await post(devnet.info.url, ICM, { message: message('unknown subnet icm'), 'signing-subnet-id': stranger, 'pchain-height': HEIGHTS.current });
    expect(i.status).toBe(404);
    expect(i.body).toEqual({ error: `subnet ${stranger} is not known to the P-Chain` });
  });

  it('a justification over limits.justificationBytes → 413 naming the field, in both dialects; at the limit it passes', async () => {
    const over = 'ab'.repeat(65_537);
    const g = await post(devnet.info.url, GLACIER, { message: message('big justification'), justification: over });
    expect(g.status).toBe(413);
    expect(g.body).toEqual(dataApiError(413, 'justification: is 65537 bytes, more than the limit of 65536'));
    const i = await post(devnet.info.url, ICM, { message: message('big justification'), justification: `0x${over}` });
    expect(i.status).toBe(413);
    expect(i.body).toEqual({ error: 'justification: is 65537 bytes, more than the limit of 65536' });
    // 65,536 bytes is within the cap: the request goes on to the next check (its bad message).
    const at = await post(devnet.info.url, GLACIER, { message: 'zz', justification: 'ab'.repeat(65_536) });
    expect(at.status).toBe(400);
    expect(at.body.message).toMatch(/^message: /);
  });
});

describe('5xx answers', () => {
  it('quorum not reached → 503 with Retry-After', async () => {
    const answer = await post(bare.url, GLACIER, { message: devnet.exampleMessageHex('nobody connected') });
    expect(answer.status).toBe(503);
    expect(answer.body.message).toMatch(/^quorum not reached after every connected validator was asked/);
    expect(answer.headers.get('retry-after')).toBe('1');
  });

  it('never show the node’s URL, on the aggregation endpoints or /ready', async () => {
    const { host } = new URL(devnet.node.url);
    devnet.node.setFault('down');
    try {
      // A height no other test asked for, so the set is not cached.
      const answer = await post(bare.url, GLACIER, { message: devnet.exampleMessageHex('node down'), signingSubnetId: devnet.info.subnetId, pChainHeight: HEIGHTS.weightChange });
      expect(answer.status).toBeGreaterThanOrEqual(500);
      expect(answer.body.message).toMatch(/P-Chain node call platform\.\w+ failed/);
      expect(answer.text).not.toContain(host);
      const ready = await call(`${bare.url}/ready`);
      expect(ready.status).toBe(503);
      expect(ready.text).toMatch(/node does not answer/);
      expect(ready.text).not.toContain(host);
    } finally {
      devnet.node.setFault(null);
    }
  });
});

describe('rate limit of the aggregation endpoints (rateLimit.aggregationsPerMinute)', () => {
  it('past the budget: 429 with Retry-After in each dialect, for POST and the txHash GET alike; an API key buys nothing', async () => {
    // Three cheap requests spend the budget of this client (127.0.0.1): it counts requests, not successes.
    for (const path of [GLACIER, ICM, GLACIER]) expect((await post(limited.url, path, {})).status).toBe(400);
    const g = await post(limited.url, GLACIER, { message: devnet.exampleMessageHex('over the limit') }, { 'x-glacier-api-key': 'made-up' });
    expect(g.status).toBe(429);
    expect(g.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    expect(g.body.message).toMatch(/^rate limit exceeded: at most 3 aggregation requests a minute per client; retry in \d+ s$/);
    expect(Number(g.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const i = await post(limited.url, ICM, { message: devnet.exampleMessageHex('over the limit icm') });
    expect(i.status).toBe(429);
    expect(Object.keys(i.body)).toEqual(['error']);
    expect(i.headers.get('retry-after')).not.toBeNull();
    const tx = await call(`${limited.url}${GLACIER}/${devnet.info.l1ConversionTxId}`);
    expect(tx.status).toBe(429);
    expect(tx.body).toMatchObject({ statusCode: 429 });
    // Other endpoints are not charged.
    expect((await call(`${limited.url}/health`)).status).toBe(200);
  });

  it('the devnet turns it off: one local client sends more than the default budget', async () => {
    const answers = await Promise.all(Array.from({ length: 130 }, () => post(devnet.info.url, GLACIER, {})));
    expect(answers.filter((a) => a.status === 429)).toHaveLength(0);
  });
});
