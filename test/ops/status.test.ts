// GET /status.json (and the page's routes) on a small devnet: the subnet's stake against quorum and
// its validators, the last aggregations (bounded by status.recentAggregations, newest first, with
// the time the signers took), the penalty of a signer that sent an invalid signature, cache and
// worker state; nothing secret and no client address in it; publicMode turns every status route
// off. The status model's bounds and fallbacks, and the answer tracker's, are checked on their own
// (test/service/status.test.ts and below).
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { AnswerTracker } from '../../src/service/answer-tracker.js';
import type { StatusReport } from '../../src/server/status/report.js';
import type { AskDone, PeerAnswer, PeerSource } from '../../src/aggregator/peer-source.js';
import { postJson, request, scrape, waitFor } from './helpers.js';

const API_KEY = 'status-page-must-not-show-this-key';
let devnet: Devnet;
let publicDevnet: Devnet;
let strictDevnet: Devnet;

beforeAll(async () => {
  const logger = pino({ level: 'silent' });
  [devnet, publicDevnet, strictDevnet] = await Promise.all([
    // Signer peers only: the checks below count signers (status over both transports: test/devnet/transports.test.ts).
    startDevnet({
      validators: 6,
      byzantine: 1,
      transport: 'ws',
      port: 0,
      logger,
      // Penalties are counted, never enough to ban: the connection counts below stay whole.
      configOverrides: { 'status.recentAggregations': 2, 'status.refreshMs': 250, 'upstreams.apiKey': API_KEY, 'workers.threads': 1, 'peerPenalties.threshold': 1000 },
    }),
    startDevnet({ validators: 2, port: 0, logger, configOverrides: { publicMode: true, 'workers.threads': 1 } }),
    // One invalid signature bans a signer here.
    startDevnet({ validators: 4, byzantine: 1, transport: 'ws', port: 0, logger, configOverrides: { 'status.refreshMs': 250, 'workers.threads': 1, 'peerPenalties.threshold': 1 } }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([devnet?.close(), publicDevnet?.close(), strictDevnet?.close()]);
});

/** The report once it reflects `total` aggregations (reports are shared for status.refreshMs). */
async function reportWith(total: number): Promise<{ report: StatusReport; text: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await fetch(`${devnet.info.url}/status.json`, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const report = JSON.parse(text) as StatusReport;
    if (report.aggregations.total === total) return { report, text };
    if (Date.now() > deadline) throw new Error(`status.json never showed ${total} aggregations: ${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('GET /status.json', () => {
  it('shows the subnet, its validators, the last aggregations (bounded) and the penalty of the signer that cheated', async () => {
    const url = `${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`;
    expect((await postJson(url, { message: devnet.exampleMessageHex('status 1') })).status).toBe(201);
    // 100% cannot be reached: the byzantine signer's signature is invalid (a penalty).
    expect((await postJson(url, { message: devnet.exampleMessageHex('status 2'), quorumPercentage: 100 })).status).toBe(503);
    expect((await postJson(url, { message: devnet.exampleMessageHex('status 3') })).status).toBe(201);

    const { report } = await reportWith(3);
    expect(report.ready).toBe(true);
    // The byzantine signer has a penalty per invalid signature it sent, the others none. Its
    // invalid signature is checked at 100% for sure, at 67% only when it is among the signatures
    // the final check needs: the penalties shown are the invalid answers counted, at least one.
    // peerPenalties.threshold keeps it connected (the ban: the next test).
    const invalid = (await scrape(devnet.info.url)).sum('warpgate_signature_responses_total', { result: 'invalid' });
    expect(invalid).toBeGreaterThanOrEqual(1);
    const connected = devnet.info.signers;
    expect(report.peers).toEqual({ connected, byTransport: { websocket: connected }, silent: [] });

    // status.recentAggregations = 2: the newest two, newest first; the counts keep all three.
    expect(report.aggregations.byOutcome).toEqual({ success: 2, quorum_not_reached: 1, error: 0 });
    expect(report.aggregations.recent.map((a) => a.outcome)).toEqual(['success', 'quorum_not_reached']);
    const [last, failed] = report.aggregations.recent;
    expect(last).toMatchObject({ subnetId: devnet.info.subnetId, error: null, totalWeight: devnet.genesis.totalWeight.toString() });
    expect(last!.signers).toBeGreaterThan(0);
    expect(last!.idealMs).not.toBeNull();
    expect(last!.idealMs!).toBeLessThanOrEqual(last!.ms);
    expect(failed).toMatchObject({ subnetId: devnet.info.subnetId, idealMs: null, signers: null });

    const [subnet] = report.subnets;
    expect(report.subnets).toHaveLength(1);
    expect(subnet).toMatchObject({ subnetId: devnet.info.subnetId, tracked: true, quorumPercentage: 67, totalWeight: devnet.genesis.totalWeight.toString(), validatorCount: devnet.info.signers });
    // Heaviest first, every one connected and answering with a signature.
    const weights = subnet!.validators.map((v) => BigInt(v.weight));
    expect(weights).toHaveLength(devnet.info.signers);
    expect([...weights].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(weights);
    const cheat = (v: { nodeIds: string[] }): boolean => devnet.info.byzantine.some((id) => v.nodeIds.includes(id));
    for (const v of subnet!.validators) {
      expect(v).toMatchObject({ connected: true, transport: 'websocket' });
      expect(v.lastAnswer?.result).toBe('signature');
    }
    expect(subnet!.validators.filter(cheat).map((v) => v.penalties)).toEqual([invalid]);
    expect(subnet!.validators.filter((v) => !cheat(v)).every((v) => v.penalties === 0)).toBe(true);

    expect(report.signatureCache).toMatchObject({ maxMessages: 10_000, maxSignatures: 200_000, misses: 3, hits: 0 });
    expect(report.signatureCache.signatures).toBeGreaterThan(0);
    expect(report.workers).toEqual({ threads: 1, queued: 0, maxQueue: 4096 });
  });

  it('with peerPenalties.threshold 1, one invalid signature disconnects the signer that sent it, and it stays away', async () => {
    const url = `${strictDevnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`;
    // 100% needs every signature, so the byzantine one is checked, found bad and penalized.
    expect((await postJson(url, { message: strictDevnet.exampleMessageHex('ban'), quorumPercentage: 100 })).status).toBe(503);
    const signers = strictDevnet.info.signers;
    const report = await waitFor('the cheating signer disconnected', async () => {
      const res = await fetch(`${strictDevnet.info.url}/status.json`, { signal: AbortSignal.timeout(10_000) });
      const r = (await res.json()) as StatusReport;
      return r.peers.connected === signers - 1 ? r : undefined;
    });
    const cheat = (v: { nodeIds: string[] }): boolean => strictDevnet.info.byzantine.some((id) => v.nodeIds.includes(id));
    const [subnet] = report.subnets;
    expect(subnet!.validators.filter(cheat).map((v) => [v.connected, v.penalties])).toEqual([[false, 1]]);
    expect(subnet!.validators.filter((v) => !cheat(v)).every((v) => v.connected && v.penalties === 0)).toBe(true);
    // Refused for the cooldown (5 min by default): still away after another aggregation.
    expect((await postJson(url, { message: strictDevnet.exampleMessageHex('after the ban') })).status).toBe(201);
    expect((await scrape(strictDevnet.info.url)).value('warpgate_peers_connected', { transport: 'ws' })).toBe(signers - 1);
  });

  it('holds no secret and no client address', async () => {
    const { text } = await reportWith(3);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(devnet.info.pchainUrl);
  });

  it('GET / leads to the page; the page is self-contained under a strict Content-Security-Policy', async () => {
    const root = await fetch(`${devnet.info.url}/`, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/status');
    const page = await fetch(`${devnet.info.url}/status`, { signal: AbortSignal.timeout(10_000) });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    // No external asset: nothing is loaded by URL.
    expect(html).not.toMatch(/\b(src|href)\s*=/i);
    // The one URL it holds is SVG's namespace, a name the charts' elements are created under
    // (createElementNS), which nothing fetches.
    expect(html.match(/https?:\/\/[^'"\s]*/g)).toEqual(['http://www.w3.org/2000/svg']);
  });
});

describe('publicMode', () => {
  it('serves no status page: /, /status and /status.json are 404', async () => {
    for (const path of ['/', '/status', '/status.json']) {
      const res = await request(`${publicDevnet.info.url}${path}`);
      expect(res.status, path).toBe(404);
    }
    // The rest of the service is there.
    expect((await request(`${publicDevnet.info.url}/health`)).status).toBe(200);
  });
});

describe('AnswerTracker', () => {
  /** How each key's request goes, given its callback when it is asked. */
  const answers = new Map<string, (done: AskDone) => void>();
  const cancelled: string[] = [];
  const source: PeerSource = {
    isConnected: () => true,
    ask: (pk, _req, _timeoutMs, done) => {
      answers.get(pk)!(done);
      return { cancel: () => cancelled.push(pk) };
    },
    penalize: () => undefined,
  };
  const req = { message: new Uint8Array(1), justification: new Uint8Array() };
  const asked = (observed: PeerSource, pk: string): Promise<{ err: Error | undefined; answer: PeerAnswer | undefined }> =>
    new Promise((resolve) => observed.ask(pk, req, 1_000, (err, answer) => resolve({ err, answer })));

  it('notes each key\'s last answer, timeout and penalties, not cancellations, and forgets the least recently heard from past its bound', async () => {
    let now = 1_000;
    const tracker = new AnswerTracker(2, () => now);
    const observed = tracker.observe(source);
    answers.set('aa', (done) =>
      queueMicrotask(() => {
        now += 7;
        done(undefined, { kind: 'signature', signature: new Uint8Array(96) });
      }),
    );
    answers.set('bb', (done) =>
      queueMicrotask(() => {
        now += 3;
        done(undefined, { kind: 'refused', reason: 'policy' });
      }),
    );
    // Never answered: given up on at its deadline, or cancelled as no longer needed.
    answers.set('cc', () => undefined);
    answers.set('dd', () => undefined);
    // The transport's own timeout.
    answers.set('ee', (done) => queueMicrotask(() => done(Object.assign(new Error('slow'), { reason: 'timeout' }), undefined)));

    expect((await asked(observed, 'aa')).answer?.kind).toBe('signature');
    expect((await asked(observed, 'bb')).answer?.kind).toBe('refused');
    observed.penalize('bb', 'invalid signature');
    now += 2_000;
    expect(tracker.get('AA')).toEqual({ last: { result: 'signature', ms: 7, secondsAgo: 2 }, penalties: 0 });
    expect(tracker.get('bb')).toEqual({ last: { result: 'refused', ms: 3, secondsAgo: 2 }, penalties: 1 });

    const dd = observed.ask('dd', req, 1_000, () => undefined);
    dd.cancel('cancelled');
    expect(cancelled).toEqual(['dd']);
    expect(tracker.get('dd')).toEqual({ last: null, penalties: 0 });

    // A third key: 'aa', heard from longest ago, is forgotten.
    const cc = observed.ask('cc', req, 1_000, () => undefined);
    now += 1_000;
    cc.cancel('timeout');
    cc.cancel('timeout');
    expect(cancelled).toEqual(['dd', 'cc']);
    expect(tracker.get('cc').last).toMatchObject({ result: 'timeout', ms: 1_000 });
    expect(tracker.get('aa')).toEqual({ last: null, penalties: 0 });
    expect(tracker.get('bb').penalties).toBe(1);

    expect((await asked(observed, 'ee')).err?.message).toBe('slow');
    expect(tracker.get('ee').last?.result).toBe('timeout');
  });
});
