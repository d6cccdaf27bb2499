// The status page in a real browser: Debian's headless Chromium, driven by playwright-core (which
// downloads nothing), loads GET / on a running devnet, follows it to /status, and the numbers the
// page draws from /status.json are the ones /metrics exports, and its charts of the last 15
// minutes are drawn from status.json's timeline. The page loads nothing but itself
// and status.json, breaks no rule of its Content-Security-Policy, and is photographed. Without a
// Chromium on this machine the test says so and is skipped (CI installs one in .ci/run); it
// installs nothing itself.
//
// docs/operations.md's screenshot (docs/status-page.png) is this test's:
//   STATUS_PAGE_SCREENSHOT=docs/status-page.png npx vitest run test/ops/status-page.test.ts
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { postJson, scrape } from './helpers.js';

/** Where Debian (and other distributions) install Chromium; CHROMIUM_PATH names another. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);
const executablePath = CANDIDATES.find((p) => existsSync(p));
const NO_BROWSER = `no Chromium found (looked at ${CANDIDATES.join(', ')}): install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`;

const shots = mkdtempSync(join(tmpdir(), 'warpgate-status-page-'));
let devnet: Devnet | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!executablePath) return;
  // One byzantine signer, so the page has penalties and a failed aggregation to show.
  devnet = await startDevnet({ validators: 8, byzantine: 1, port: 0, logger: pino({ level: 'silent' }), configOverrides: { 'status.refreshMs': 250, 'workers.threads': 1 } });
  // Headless Chromium as root needs --no-sandbox; CI runs as root.
  browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await devnet?.close();
  rmSync(shots, { recursive: true, force: true });
});

describe('the status page in Chromium', () => {
  it('shows what /metrics exports, live, and loads nothing from elsewhere', async (ctx) => {
    if (!executablePath || !devnet || !browser) {
      console.warn(`status page browser test skipped: ${NO_BROWSER}`);
      ctx.skip(NO_BROWSER);
      return;
    }
    const { url } = devnet.info;
    const aggregate = (body: object): Promise<{ status: number }> => postJson(`${url}/v1/signatureAggregator/fuji/aggregateSignatures`, body);
    // Two successes (the second partly from the cache) and one that cannot reach 100%.
    expect((await aggregate({ message: devnet.exampleMessageHex('status page 1') })).status).toBe(201);
    expect((await aggregate({ message: devnet.exampleMessageHex('status page 1') })).status).toBe(201);
    expect((await aggregate({ message: devnet.exampleMessageHex('status page 2'), quorumPercentage: 100 })).status).toBe(503);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    const response = await page.goto(`${url}/`);
    expect(page.url()).toBe(`${url}/status`);
    expect(response?.status()).toBe(200);
    const shown = (count: number): Promise<void> => page.locator('[data-metric="aggregations-total"]', { hasText: new RegExp(`^${count}$`) }).waitFor({ timeout: 20_000 });
    await shown(3);
    expect(await page.getAttribute('body', 'data-state')).toBe('live');

    const text = async (selector: string): Promise<string> => (await page.locator(selector).first().textContent()) ?? '';
    const metrics = await scrape(url);
    // Validators connected over both transports (the gauge has one series per transport).
    expect(Number(await text('[data-metric="peers-connected"]'))).toBe(metrics.sum('warpgate_peers_connected'));
    expect(Number(await text('[data-metric="aggregations-total"]'))).toBe(metrics.sum('warpgate_aggregation_seconds_count'));
    expect(Number(await text('[data-metric="aggregations-in-flight"]'))).toBe(metrics.value('warpgate_aggregations_in_flight'));
    expect(Number(await text('[data-metric="worker-queue"]'))).toBe(metrics.value('warpgate_worker_queue_depth'));
    const stake = await text(`[data-subnet="${devnet.info.subnetId}"] [data-metric="connected-percent"]`);
    expect(stake).toBe(`${metrics.value('warpgate_connected_stake_percent', { subnet: devnet.info.subnetId })!.toFixed(2)}%`);
    // One row per aggregation, newest first, by outcome as the histogram counts them.
    const outcomes = await page.locator('[data-outcome]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-outcome')));
    expect(outcomes).toEqual(['quorum_not_reached', 'success', 'success']);
    expect(metrics.sum('warpgate_aggregation_seconds_count', { outcome: 'quorum_not_reached' })).toBe(1);
    // Every validator of the set is listed (8 is under status.validatorsPerSubnet): one per BLS key,
    // whichever transport reaches it.
    const keys = await page.locator(`[data-subnet="${devnet.info.subnetId}"] [data-validator]`).count();
    expect(keys).toBe(new Set(devnet.genesis.validators.map((v) => Buffer.from(v.publicKey).toString('hex'))).size);

    // It goes on updating: a fourth aggregation shows up without a reload.
    expect((await aggregate({ message: devnet.exampleMessageHex('status page 3') })).status).toBe(201);
    await shown(4);

    // The last 15 minutes as charts, drawn in the page (inline SVG) from status.json's timeline:
    // one bar per interval, stacked by outcome, adding up to the aggregations so far, and the
    // latency of the successes as p50 and p99 points.
    const bars = page.locator('svg[data-chart="outcomes"] g[data-interval]');
    const timeline = ((await (await fetch(`${url}/status.json`)).json()) as { aggregations: { timeline: { intervals: unknown[] } } }).aggregations.timeline;
    expect(await bars.count()).toBe(timeline.intervals.length);
    const sumOf = (attribute: string): Promise<number> => bars.evaluateAll((gs, a) => gs.reduce((n, g) => n + Number(g.getAttribute(a)), 0), attribute);
    await expect.poll(() => sumOf('data-success'), { timeout: 20_000 }).toBe(3);
    expect(await sumOf('data-quorum-not-reached')).toBe(1);
    expect(await sumOf('data-error')).toBe(0);
    expect(await page.locator('svg[data-chart="outcomes"] rect.bar.ok').count()).toBeGreaterThan(0);
    expect(await page.locator('svg[data-chart="outcomes"] rect.bar.warn').count()).toBe(1);
    for (const series of ['p50', 'p99']) {
      const points = await page.locator(`svg[data-chart="latency"] circle[data-series="${series}"]`).evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('data-ms'))));
      expect(points.length, series).toBeGreaterThan(0);
      for (const ms of points) expect(ms).toBeGreaterThan(0);
    }
    // Drawn, not just present: both charts have a size on the page.
    for (const chart of ['latency', 'outcomes']) {
      const box = await page.locator(`svg[data-chart="${chart}"]`).boundingBox();
      expect(box!.width, chart).toBeGreaterThan(300);
      expect(box!.height, chart).toBeGreaterThan(50);
    }

    // Nothing but this origin was asked for, and no CSP or script error happened.
    expect(requested.filter((r) => !r.startsWith(`${url}/`))).toEqual([]);
    expect(problems).toEqual([]);

    const shot = process.env.STATUS_PAGE_SCREENSHOT ? resolve(process.env.STATUS_PAGE_SCREENSHOT) : join(shots, 'status-page.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
  }, 90_000);
});
