// `node --import tsx bench/relayer-standby.ts [--ttl MS] [--rounds N] [--writes N]`: what the
// active/standby relayer costs (docs/relayer.md, "Running a standby"), on Debian's redis-server started here.
//   - takeover: a lease holder in its own process (test/relayer/lease-holder.ts) is killed
//     (SIGKILL) or stopped (SIGTERM, which releases); the time from the signal to a standby in
//     this process holding the route. Renewals every ttl/3, the standby polls every 250 ms.
//   - store writes: sequential insert + update of a message record (its state changes), p50/p99
//     per write, with Redis persistence off, AOF `appendfsync everysec`, and `appendfsync always`.
// Prints a markdown summary.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Hex, MessageRecord } from '../src/relayer/ports.js';
import { RedisRouteLeases } from '../src/relayer/store/redis-leases.js';
import { RedisRelayerStore } from '../src/relayer/store/redis-store.js';
import { SharedConnection } from '../src/shared-state/connection.js';
import { packagePath, tsExecArgv } from '../src/util/ts-runtime.js';
import { redisServerPath, startRedis } from '../test/shared-state/redis-server.js';

const { values } = parseArgs({ options: { ttl: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '5' }, writes: { type: 'string', default: '1000' } } });
const ttl = Number(values.ttl);
const rounds = Number(values.rounds);
const writes = Number(values.writes);
const ROUTE = 'bench-src->bench-dst';

function summary(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return `${at(0).toFixed(0)} / ${at(0.5).toFixed(0)} / ${at(1 - 1e-9).toFixed(0)}`;
}

async function takeover(url: string, signal: 'SIGKILL' | 'SIGTERM', round: number): Promise<number> {
  const prefix = `bench${signal}${round}:`;
  const child: ChildProcess = spawn(process.execPath, [...tsExecArgv(), packagePath('test/relayer/lease-holder.ts'), url, prefix, ROUTE, String(ttl), String(ttl / 3), '250'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const held = new Promise<void>((resolve) => createInterface({ input: child.stdout! }).on('line', (l) => (JSON.parse(l) as { kind: string; held: boolean }).held && resolve()));
  await held;
  const conn = new SharedConnection({ url, keyPrefix: prefix, commandTimeoutMs: 1_000, connectTimeoutMs: 5_000 });
  await conn.connect();
  let gained!: () => void;
  const gain = new Promise<void>((r) => (gained = r));
  const standby = new RedisRouteLeases(conn, { ttlMs: ttl, pollEveryMs: 250 });
  standby.start([ROUTE], (_r, h) => h && gained());
  // Somewhere within the holder's renewal period, as a real failure would be.
  await new Promise((r) => setTimeout(r, Math.random() * (ttl / 3)));
  const exited = once(child, 'exit');
  const t0 = performance.now();
  child.kill(signal);
  await gain;
  const took = performance.now() - t0;
  process.stderr.write(`${signal} round ${round}: ${took.toFixed(0)} ms\n`);
  await exited;
  await standby.stop();
  await conn.close();
  return took;
}

function record(n: number): MessageRecord {
  const id = `0x${n.toString(16).padStart(64, '0')}` as Hex;
  return {
    route: ROUTE,
    status: 'seen',
    version: 1,
    message: {
      warpMessageId: id,
      teleporterMessageId: `0x${(n + 1e9).toString(16).padStart(64, '0')}`,
      sourceBlockchainId: 'src',
      destinationBlockchainId: 'dst',
      unsignedMessage: `0x${'ab'.repeat(600)}`,
      blockNumber: n,
      blockHash: id,
      transactionHash: id,
      logIndex: 0,
      originSenderAddress: `0x${'11'.repeat(20)}`,
      destinationAddress: `0x${'22'.repeat(20)}`,
      requiredGasLimit: 100_000n,
      allowedRelayerAddresses: [],
      receiptCount: 0,
      payloadBytes: 200,
    },
    submissions: [],
    attempts: 0,
    firstSeenAt: Date.now(),
    updatedAt: Date.now(),
  };
}

async function writeLatency(persistence: string[]): Promise<{ insert: number[]; update: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'relayer-bench-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = spawn(redisServerPath(), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, ...persistence], { stdio: 'ignore' });
  const conn = new SharedConnection({ url: `redis://127.0.0.1:${port}`, keyPrefix: 'w:', commandTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
  // The server may not listen yet: the connection retries by itself.
  await conn.connect();
  for (let i = 0; i < 200 && !conn.up; i++) await new Promise((r) => setTimeout(r, 100));
  const store = new RedisRelayerStore(conn);
  const insert: number[] = [];
  const update: number[] = [];
  for (let n = 0; n < writes; n++) {
    const r = record(n);
    let t = performance.now();
    await store.insert(r.message.warpMessageId, r);
    insert.push(performance.now() - t);
    const { version: _v, ...rest } = r;
    t = performance.now();
    await store.update(r.message.warpMessageId, 1, { ...rest, status: 'signed', signedMessage: `0x${'cd'.repeat(800)}` });
    update.push(performance.now() - t);
  }
  await conn.close();
  server.kill('SIGKILL');
  await once(server, 'exit');
  rmSync(dir, { recursive: true, force: true });
  return { insert, update };
}

const redis = await startRedis();
try {
  const killed: number[] = [];
  const stopped: number[] = [];
  for (let i = 0; i < rounds; i++) killed.push(await takeover(redis.url, 'SIGKILL', i));
  for (let i = 0; i < rounds; i++) stopped.push(await takeover(redis.url, 'SIGTERM', i));
  console.log(`## Takeover (ttl ${ttl} ms, renew every ${ttl / 3} ms, standby polls every 250 ms; ${rounds} rounds each)\n`);
  console.log('| holder | signal → standby holds, ms: min / median / max |\n|---|---|');
  console.log(`| killed (SIGKILL) | ${summary(killed)} |\n| stopped (SIGTERM, releases) | ${summary(stopped)} |\n`);
  console.log(`## Store writes (${writes} messages, sequential, one route)\n`);
  console.log('| Redis persistence | insert p50 / p99 ms | update p50 / p99 ms |\n|---|---|---|');
  const pq = (ms: number[]): string => {
    const s = [...ms].sort((a, b) => a - b);
    return `${s[Math.floor(0.5 * s.length)]!.toFixed(2)} / ${s[Math.floor(0.99 * s.length)]!.toFixed(2)}`;
  };
  for (const [name, args] of [
    ['none', ['--appendonly', 'no']],
    ['appendfsync everysec', ['--appendonly', 'yes', '--appendfsync', 'everysec']],
    ['appendfsync always', ['--appendonly', 'yes', '--appendfsync', 'always']],
  ] as const) {
    const r = await writeLatency([...args]);
    console.log(`| ${name} | ${pq(r.insert)} | ${pq(r.update)} |`);
  }
} finally {
  await redis.stop();
}
