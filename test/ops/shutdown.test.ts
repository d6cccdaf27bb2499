// Graceful shutdown through the real binary: `warpgate serve --config` pointed at a devnet whose
// signers answer slowly; SIGTERM while aggregations are in flight stops new connections, lets
// the aggregations finish with 201, and exits 0 (SIGINT: see docker.test.ts). Past the grace
// period in-flight requests are cut and the service closes anyway.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/service/start.js';
import { CapturedLog, cleanEnv, logLine, postJson, request, scrape, startWarpgate, waitFor, type WarpgateProcess } from './helpers.js';

const SIGNER_DELAY_MS = 1_500;
const dir = mkdtempSync(join(tmpdir(), 'warpgate-shutdown-'));
let devnet: Devnet;
let configFile: string;
const processes: WarpgateProcess[] = [];

beforeAll(async () => {
  // Signer peers only: their answers are slowed (signerDelayMs), which keeps aggregations in flight.
  devnet = await startDevnet({ validators: 4, transport: 'ws', port: 0, signerDelayMs: SIGNER_DELAY_MS, logger: pino({ level: 'silent' }), configOverrides: { 'workers.threads': 1 } });
  configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'info',
      upstreams: { node: devnet.node.url },
      peers: devnet.config.peers,
      localNetworkId: devnet.genesis.networkId,
      readiness: { subnets: [devnet.info.subnetId] },
      workers: { threads: 1 },
      shutdownGraceMs: 8_000,
    }),
  );
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
});

afterAll(async () => {
  await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `warpgate serve --config` and waits until it is ready (all signers connected). */
async function startServe(): Promise<{ proc: WarpgateProcess; url: string }> {
  const proc = startWarpgate(['serve', '--config', configFile], cleanEnv());
  processes.push(proc);
  const line = await proc.waitForLine((l) => l.includes('"warpgate listening"'), 30_000);
  const url = (JSON.parse(line) as { url: string }).url;
  await waitFor('the service to be ready', async () => ((await request(`${url}/ready`)).status === 200 ? true : undefined), 20_000, 100);
  return { proc, url };
}

/** Opens a fresh TCP connection (no keep-alive reuse) and reports whether the server took it. */
function freshConnectionAccepted(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(`${url}/health`, { agent: false, timeout: 3_000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

describe('graceful shutdown', () => {
  it('SIGTERM with aggregations in flight: they complete with 201, new connections are refused, exit 0', async () => {
    const { proc, url } = await startServe();
    const messages = ['one', 'two', 'three'].map((t) => devnet.exampleMessageHex(`in flight ${t}`));
    let answered = 0;
    const inFlight = messages.map((message) => postJson(`${url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message }).finally(() => answered++));
    await waitFor(
      'three aggregations in flight',
      async () => ((await scrape(url)).value('warpgate_aggregations_in_flight') === 3 ? true : undefined),
      SIGNER_DELAY_MS,
      25,
    );
    proc.child.kill('SIGTERM');
    const answeredBeforeSignal = answered;

    await waitFor('the listener to close', async () => ((await freshConnectionAccepted(url)) ? undefined : true), 2_000, 50);
    const answers = await Promise.all(inFlight);
    for (const [i, a] of answers.entries()) {
      expect(a.status).toBe(201);
      // The signed message is the unsigned one followed by the signature.
      expect(a.body.signedMessage.startsWith(messages[i])).toBe(true);
    }
    // They were still running when the signal came: the signers alone take SIGNER_DELAY_MS.
    expect(answeredBeforeSignal).toBe(0);

    const { code, signal } = await proc.exited(10_000);
    expect(signal).toBeNull();
    expect(code).toBe(0);
    const shuttingDown = logLine(proc.stdoutLines, 'shutting down');
    expect(shuttingDown?.inFlightAggregations).toBe(3);
    expect(logLine(proc.stdoutLines, 'stopped')).toBeDefined();
    expect(logLine(proc.stdoutLines, 'grace period over: cutting in-flight requests')).toBeUndefined();
  });

  it('past shutdownGraceMs the in-flight requests are cut and the service still closes', async () => {
    const log = new CapturedLog();
    const service = await startService(
      loadConfig({
        env: {},
        overrides: {
          port: 0,
          host: '127.0.0.1',
          'upstreams.node': devnet.node.url,
          peers: devnet.config.peers,
          localNetworkId: devnet.genesis.networkId,
          'workers.threads': 1,
          shutdownGraceMs: 300,
        },
      }),
      { logger: pino({ level: 'info' }, log) },
    );
    let closed = false;
    try {
      await waitFor('the signers to connect', () => (service.peers.connectedKeys().length === devnet.info.signers ? true : undefined), 20_000);
      const slow = postJson(`${service.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: devnet.exampleMessageHex('cut short') }).then(
        (a) => a,
        (err: unknown) => err as Error,
      );
      await waitFor('the aggregation to be in flight', () => (service.aggregator.active === 1 ? true : undefined), SIGNER_DELAY_MS, 5);
      const at = Date.now();
      await service.close();
      closed = true;
      const tookMs = Date.now() - at;
      // The grace period was given in full, and close() did not wait for the aggregation: no
      // signer (each takes SIGNER_DELAY_MS) had answered when it returned.
      expect(tookMs).toBeGreaterThanOrEqual(280);
      expect((await service.metrics.signatureResponses.get()).values.find((v) => v.labels.result === 'valid')?.value ?? 0).toBe(0);
      // The client sees its connection dropped, not an answer.
      expect(await slow).toBeInstanceOf(Error);
      expect(log.records.find((r) => r.msg === 'grace period over: cutting in-flight requests')).toMatchObject({ inFlightRequests: 1, graceMs: 300 });
    } finally {
      if (!closed) await service.close();
    }
  });
});
