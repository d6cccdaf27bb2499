// The bench's icmServices strategy without Go (the binary is built on demand, not in CI): the
// pinned commit read from interop/icm/go.mod, the versions read from the binary, the config it
// is given, its CPU and memory read from /proc, its API spoken by the load client, the ratios
// derived against warpgate, and the options that guard it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchArgsError, DEFAULT_OPTIONS, parseArgs } from '../../bench/args.js';
import { configPathFor } from '../../bench/icm-strategy.js';
import { ICM_MODULE_DIR, icmServicesConfig, pinnedCommit, procSample, versionsOf } from '../../bench/icm-services.js';
import { runLoad } from '../../bench/load.js';
import { derivedFigures, derivedLines } from '../../bench/report.js';
import type { StrategyReport } from '../../bench/harness.js';

describe('the icm-services build', () => {
  it('pins the commit of the release go.mod requires, as the bench and fetch-source.sh read it', () => {
    const goMod = readFileSync(`${ICM_MODULE_DIR}/go.mod`, 'utf8');
    expect(pinnedCommit(goMod)).toBe('40e1c898d442');
    expect(goMod).toMatch(/^replace github\.com\/ava-labs\/icm-services => \.\/\.src$/m);
    expect(pinnedCommit('require github.com/ava-labs/icm-services v1.4.1-0.20260724192228-9c08e90aaca8\n')).toBe('9c08e90aaca8');
    expect(() => pinnedCommit('module x\n')).toThrow(/no pseudo-version/);
  });

  it("reads the binary's Go and avalanchego from go version -m", () => {
    const out = [
      '.build/signature-aggregator: go1.26.8',
      '\tpath\tgithub.com/ava-labs/icm-services/signature-aggregator/main',
      '\tdep\tgithub.com/ava-labs/avalanchego\tv1.14.1\th1:955YG175dhyFibiPr1LA1rDw9x8Vt1UcLuNwRLOk1kM=',
      '\tdep\tgithub.com/ava-labs/avalanchego/graft/subnet-evm\tv0.8.2',
    ].join('\n');
    expect(versionsOf(out, '40e1c898d442')).toEqual({ icmServicesCommit: '40e1c898d442', avalanchego: 'v1.14.1', go: 'go1.26.8' });
  });

  it('configures it as its config.go reads it: objects for the APIs, the L1 tracked, every node as a manually tracked peer', () => {
    const config = icmServicesConfig({
      pchainUrl: 'http://127.0.0.1:9650',
      subnetIdCb58: 'subnet',
      peers: [{ nodeId: 'NodeID-A', port: 4001 }],
      apiPort: 8080,
      metricsPort: 8081,
      tlsCertPath: '/t/staker.crt',
      tlsKeyPath: '/t/staker.key',
    });
    expect(config).toMatchObject({
      'p-chain-api': { 'base-url': 'http://127.0.0.1:9650' },
      'info-api': { 'base-url': 'http://127.0.0.1:9650' },
      'api-port': 8080,
      'metrics-port': 8081,
      'allow-private-ips': true,
      'tracked-subnet-ids': ['subnet'],
      'manually-tracked-peers': [{ id: 'NodeID-A', ip: '127.0.0.1:4001' }],
      'signature-cache-size': 1024 * 1024,
    });
    expect(configPathFor('bench/results/icm-services/p2p-100.json', '/tmp/x')).toBe('bench/results/icm-services/p2p-100.icm-services.json');
    expect(configPathFor(undefined, '/tmp/x')).toBe('/tmp/x/icm-services.json');
  });

  it("reads a process's CPU (all threads) and resident memory from /proc", () => {
    const a = procSample(process.pid);
    let x = 0;
    for (let i = 0; i < 3e7; i++) x += i % 7;
    const b = procSample(process.pid);
    expect(x).toBeGreaterThan(0);
    expect(b.cpuMs).toBeGreaterThan(a.cpuMs);
    expect(b.rssBytes).toBeGreaterThan(10 * 2 ** 20);
    expect(b.peakRssBytes).toBeGreaterThanOrEqual(b.rssBytes);
  });
});

describe("the load client speaking icm-services' API", () => {
  let server: Server;
  let url: string;
  const bodies: unknown[] = [];
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        bodies.push({ path: req.url, body: JSON.parse(text) as unknown });
        const body = JSON.parse(text) as { message: string };
        if (body.message === 'bad') res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"failed to collect a threshold of signatures"}');
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ 'signed-message': `${body.message}00` }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('posts kebab-case fields with the explicit P-Chain height to /aggregate-signatures, reads 200 signed-message, counts failures', async () => {
    const result = await runLoad({ url, api: 'icmServices', messagesHex: ['abcd', 'bad'], concurrency: 1, quorumPercentage: 67, quorumPercentageBuffer: 0, timeoutMs: 5_000, pChainHeight: 1000 });
    expect(bodies[0]).toEqual({ path: '/aggregate-signatures', body: { message: 'abcd', 'quorum-percentage': 67, 'quorum-percentage-buffer': 0, 'pchain-height': 1000 } });
    expect(result.outcomes[0]).toMatchObject({ message: 0, status: 200, signedMessageHex: '0xabcd00' });
    expect(result.outcomes[1]).toMatchObject({ message: 1, status: 500, error: expect.stringContaining('threshold') });
  });
});

describe('the figures derived against warpgate', () => {
  const report = (latency: [number, number], cpu: number, throughput: number): StrategyReport =>
    ({ latencyMs: { p50: latency[0], p90: latency[1], p99: latency[1] }, cpuMsPerAggregation: cpu, throughputPerSec: throughput }) as unknown as StrategyReport;

  it('divides icm-services by warpgate (throughput: warpgate by icm-services) and prints them', () => {
    const d = derivedFigures({ warpgate: report([50, 80], 4, 40), icmServices: report([150, 400], 60, 10) });
    expect(d).toMatchObject({ latencyP50IcmServicesOverWarpgate: 3, latencyP99IcmServicesOverWarpgate: 5, cpuIcmServicesOverWarpgate: 15, throughputWarpgateOverIcmServices: 4 });
    expect(derivedLines(d)).toEqual(
      expect.arrayContaining([
        'Latency: `icmServices` / `warpgate` = 3.00x p50, 5.00x p99',
        'CPU per aggregation: `icmServices` / `warpgate` = 15.0x',
        'Throughput: `warpgate` / `icmServices` = 4.00x',
      ]),
    );
    expect(derivedFigures({ warpgate: report([50, 80], 4, 40) }).cpuIcmServicesOverWarpgate).toBeUndefined();
  });
});

describe('the bench options', () => {
  it('runs icmServices only when named, and only over p2p', () => {
    expect(DEFAULT_OPTIONS.strategies).not.toContain('icmServices');
    expect(parseArgs(['--transport', 'p2p', '--strategies', 'warpgate,icmServices,floor']).strategies).toEqual(['warpgate', 'icmServices', 'floor']);
    expect(() => parseArgs(['--strategies', 'icmServices'])).toThrow(BenchArgsError);
  });
});
