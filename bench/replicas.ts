// `npm run bench:replicas -- [--validators N] [--seconds S] [--concurrency C] [--json FILE]`:
// replicas sharing Redis against one devnet (its signers as WebSocket peers). Each replica is a
// `warpgate serve` process, as deployed; the Redis is Debian's redis-server on a free loopback
// port, started and stopped here. Measured, in one run:
//   - aggregations/s of one replica without Redis, one with Redis, and three on one Redis
//     (distinct messages, C requests in flight, spread round robin);
//   - the latency Redis adds (p50/p99 of sequential distinct messages, one replica, with and
//     without Redis): the shared-cache read, the lease, the write and the release;
//   - validator requests per message when each message is asked on all three replicas one after
//     the other, and when asked on all three at once, without and with Redis;
//   - Redis commands per aggregation (INFO's total_commands_processed over the throughput run).
// Progress goes to stderr; stdout gets a markdown summary; --json FILE writes the report.
import { cpus } from 'node:os';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../src/devnet/devnet.js';
import { cleanEnv, postJson, scrape, startWarpgate, type WarpgateProcess } from '../test/ops/helpers.js';
import { startRedis, type TestRedis } from '../test/shared-state/redis-server.js';

const PATH = '/v1/signatureAggregator/fuji/aggregateSignatures';

interface Replica {
  url: string;
  wg: WarpgateProcess;
}

const { values } = parseArgs({
  options: {
    validators: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '16' },
    latencyRuns: { type: 'string', default: '200' },
    messages: { type: 'string', default: '40' },
    json: { type: 'string' },
  },
});
const VALIDATORS = Number(values.validators);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const LATENCY_RUNS = Number(values.latencyRuns);
const MESSAGES = Number(values.messages);
const progress = (line: string): void => void process.stderr.write(`${line}\n`);

let devnet: Devnet;
let redis: TestRedis;
let text = 0;
const freshMessage = (): string => devnet.exampleMessageHex(`bench replicas ${process.pid} ${++text}`);

async function startReplicas(n: number, redisUrl: string | null): Promise<Replica[]> {
  const dir = mkdtempSync(join(tmpdir(), 'warpgate-bench-replicas-'));
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const file = join(dir, `replica-${i}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          port: 0,
          host: '127.0.0.1',
          upstreams: { node: devnet.node.url },
          peers: devnet.config.peers,
          p2p: { enabled: false },
          localNetworkId: devnet.genesis.networkId,
          readiness: { subnets: [devnet.info.subnetId] },
          workers: { threads: 1 },
          rateLimit: { aggregationsPerMinute: 0 },
          redis: { url: redisUrl, keyPrefix: `bench${process.pid}:` },
        }),
      );
      const wg = startWarpgate(['serve', '--config', file], cleanEnv());
      const line = await wg.waitForLine((l) => l.includes('"warpgate listening"'), 120_000);
      const url = (JSON.parse(line) as { url: string }).url;
      const deadline = Date.now() + 120_000;
      for (;;) {
        const status = (await (await fetch(`${url}/status.json`)).json()) as { peers: { connected: number } };
        if (status.peers.connected === devnet.info.signers) break;
        if (Date.now() > deadline) throw new Error(`replica ${i} connected ${status.peers.connected} of ${devnet.info.signers} signers`);
        await new Promise((r) => setTimeout(r, 200));
      }
      return { url, wg };
    }),
  );
}

async function stopReplicas(replicas: Replica[]): Promise<void> {
  await Promise.all(replicas.map((r) => r.wg.kill()));
}

async function aggregate(replica: Replica, message: string): Promise<number> {
  const answer = await postJson(`${replica.url}${PATH}`, { message });
  if (answer.status !== 201) throw new Error(`aggregation answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.status;
}

async function validatorRequests(replicas: Replica[]): Promise<number> {
  let sum = 0;
  for (const r of replicas) sum += (await scrape(r.url)).sum('warpgate_peer_requests_total');
  return sum;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * p50 and p99 (ms) of sequential aggregations of distinct messages on one replica without Redis
 * and one with, taking turns (which goes first alternates): both see the same machine load.
 */
async function latency(plain: Replica, shared: Replica): Promise<{ noRedis: Percentiles; redis: Percentiles }> {
  for (let i = 0; i < 10; i++) await Promise.all([aggregate(plain, freshMessage()), aggregate(shared, freshMessage())]);
  const times: [number[], number[]] = [[], []];
  const timed = async (replica: Replica, into: number[]): Promise<void> => {
    const message = freshMessage();
    const t0 = performance.now();
    await aggregate(replica, message);
    into.push(performance.now() - t0);
  };
  for (let i = 0; i < LATENCY_RUNS; i++) {
    if (i % 2 === 0) {
      await timed(plain, times[0]);
      await timed(shared, times[1]);
    } else {
      await timed(shared, times[1]);
      await timed(plain, times[0]);
    }
  }
  return { noRedis: percentiles(times[0]), redis: percentiles(times[1]) };
}

interface Percentiles {
  p50Ms: number;
  p99Ms: number;
  runs: number;
}

function percentiles(times: number[]): Percentiles {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)), runs: sorted.length };
}

/** Distinct messages, CONCURRENCY in flight, round robin over the replicas, for SECONDS. */
async function throughput(replicas: Replica[]): Promise<{ aggregationsPerSecond: number; aggregations: number; seconds: number }> {
  let done = 0;
  let next = 0;
  const until = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await aggregate(replicas[next++ % replicas.length]!, freshMessage());
        done++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { aggregationsPerSecond: round(done / seconds), aggregations: done, seconds: round(seconds) };
}

/** Validator requests per message when every message is asked on every replica: one after the other, or all at once. */
async function askedEverywhere(replicas: Replica[], mode: 'sequential' | 'concurrent'): Promise<number> {
  const before = await validatorRequests(replicas);
  for (let i = 0; i < MESSAGES; i++) {
    const message = freshMessage();
    if (mode === 'sequential') for (const r of replicas) await aggregate(r, message);
    else await Promise.all(replicas.map((r) => aggregate(r, message)));
  }
  // Requests cut short by an answer are counted as they end.
  await new Promise((r) => setTimeout(r, 500));
  return round((await validatorRequests(replicas)) - before) / MESSAGES;
}

/** One Redis round trip (PING) as a replica sees it: the floor of what each command on an aggregation's path adds. */
async function roundTrip(client: Redis): Promise<Percentiles> {
  const times: number[] = [];
  for (let i = 0; i < 500; i++) {
    const t0 = performance.now();
    await client.ping();
    times.push(performance.now() - t0);
  }
  return percentiles(times);
}

async function commandsProcessed(client: Redis): Promise<number> {
  const info = await client.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)![1]);
}

const round = (n: number): number => Math.round(n * 100) / 100;

async function main(): Promise<void> {
  redis = await startRedis();
  const client = new Redis(redis.url);
  devnet = await startDevnet({ validators: VALIDATORS, transport: 'ws', port: 0, logger: pino({ level: 'silent' }), configOverrides: { 'workers.threads': 1 } });
  progress(`devnet: ${VALIDATORS} validators (${devnet.info.signers} signer peers), Redis ${redis.url}`);
  try {
    progress('one replica without Redis and one with, taking turns');
    const [plain] = await startReplicas(1, null);
    const [shared] = await startReplicas(1, redis.url);
    const { noRedis: noRedisLatency, redis: redisLatency } = await latency(plain!, shared!);
    const oneNoRedis = await throughput([plain!]);
    const oneRedis = await throughput([shared!]);
    await stopReplicas([plain!, shared!]);

    progress('three replicas, no Redis');
    let replicas = await startReplicas(3, null);
    const threeNoRedis = await throughput(replicas);
    const perMessageNoRedis = { sequential: await askedEverywhere(replicas, 'sequential'), concurrent: await askedEverywhere(replicas, 'concurrent') };
    await stopReplicas(replicas);

    progress('three replicas, one Redis');
    replicas = await startReplicas(3, redis.url);
    const c0 = await commandsProcessed(client);
    const threeRedis = await throughput(replicas);
    // Less the INFO itself.
    const commandsPerAggregation = round((await commandsProcessed(client)) - c0 - 1) / threeRedis.aggregations;
    const perMessageRedis = { sequential: await askedEverywhere(replicas, 'sequential'), concurrent: await askedEverywhere(replicas, 'concurrent') };
    await stopReplicas(replicas);

    const report = {
      command: `npm run bench:replicas -- --validators ${VALIDATORS} --seconds ${SECONDS} --concurrency ${CONCURRENCY} --latencyRuns ${LATENCY_RUNS} --messages ${MESSAGES}`,
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
      devnet: { validators: VALIDATORS, signerPeers: devnet.info.signers, transport: 'ws' },
      throughput: { oneReplicaNoRedis: oneNoRedis, threeReplicasNoRedis: threeNoRedis, oneReplicaRedis: oneRedis, threeReplicasOneRedis: threeRedis },
      latency: { noRedis: noRedisLatency, redis: redisLatency, addedP50Ms: round(redisLatency.p50Ms - noRedisLatency.p50Ms), addedP99Ms: round(redisLatency.p99Ms - noRedisLatency.p99Ms) },
      validatorRequestsPerMessage: { askedOnThreeReplicas: { noRedis: perMessageNoRedis, redis: perMessageRedis } },
      redisCommandsPerAggregation: round(commandsPerAggregation),
      // Before a collection starts: the shared-cache read and the lease (the write and the release come after the answer).
      redisRoundTripsBeforeCollecting: 2,
      redisRoundTrip: await roundTrip(client),
    };
    const t = report.throughput;
    process.stdout.write(
      [
        '| figure | no Redis | Redis |',
        '|---|---|---|',
        `| aggregations/s, one replica | ${t.oneReplicaNoRedis.aggregationsPerSecond} | ${t.oneReplicaRedis.aggregationsPerSecond} |`,
        `| aggregations/s, three replicas | ${t.threeReplicasNoRedis.aggregationsPerSecond} | ${t.threeReplicasOneRedis.aggregationsPerSecond} |`,
        `| latency p50 / p99, one replica (ms) | ${noRedisLatency.p50Ms} / ${noRedisLatency.p99Ms} | ${redisLatency.p50Ms} / ${redisLatency.p99Ms} |`,
        `| validator requests per message, asked on 3 replicas in turn | ${perMessageNoRedis.sequential} | ${perMessageRedis.sequential} |`,
        `| validator requests per message, asked on 3 replicas at once | ${perMessageNoRedis.concurrent} | ${perMessageRedis.concurrent} |`,
        `| Redis commands per aggregation | — | ${report.redisCommandsPerAggregation} |`,
        `| one Redis round trip p50 / p99 (ms); two come before a collection starts | — | ${report.redisRoundTrip.p50Ms} / ${report.redisRoundTrip.p99Ms} |`,
      ].join('\n') + '\n',
    );
    if (values.json) {
      mkdirSync(dirname(values.json), { recursive: true });
      writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
      progress(`wrote ${values.json}`);
    }
  } finally {
    client.disconnect();
    await devnet.close();
    await redis.stop();
  }
}

await main();
