// `node --import tsx bench/transport-floor.ts [--connections 1000] [--rounds 50]
// [--client-processes 2] [--json FILE]`: the CPU floor of the WebSocket transport alone. One
// round = the service sends a 320-byte binary frame to each of N connections and each client
// process answers every frame at once with 106 bytes. No BLS, no JSON, no application logic, so
// whatever the quorum benchmark spends above these figures is warpgate's own work.
// The same file is both roles: the parent forks itself, marked by ROLE_ENV, as the client hosts.
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import { BenchArgsError, parseOrExit } from './args.js';
import { HostProcess, serveHost } from './ipc.js';
import { summarize } from './stats.js';

export interface FloorOptions {
  connections: number;
  rounds: number;
  clientProcesses: number;
  json: string | undefined;
}

export const FLOOR_USAGE = 'usage: node --import tsx bench/transport-floor.ts [--connections 1000] [--rounds 50] [--client-processes 2] [--json FILE]';

/** Flags as in args.ts: `--flag value` or `--flag=value`; every mistake names its flag. */
export function parseFloorArgs(argv: readonly string[]): FloorOptions {
  const o: FloorOptions = { connections: 1000, rounds: 50, clientProcesses: 2, json: undefined };
  const limits = { '--connections': [1, 20_000], '--rounds': [1, 100_000], '--client-processes': [1, 64] } as const;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const raw = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (raw === undefined) throw new BenchArgsError(name, 'needs a value');
    if (name === '--json') o.json = raw;
    else if (!(name in limits)) throw new BenchArgsError(name, 'unknown flag');
    else {
      const [min, max] = limits[name as keyof typeof limits];
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || n < min || n > max) throw new BenchArgsError(name, `must be a whole number from ${min} to ${max}, got '${raw}'`);
      o[name === '--connections' ? 'connections' : name === '--rounds' ? 'rounds' : 'clientProcesses'] = n;
    }
  }
  if (o.clientProcesses > o.connections) throw new BenchArgsError('--client-processes', 'must be at most --connections');
  return o;
}

const ROLE_ENV = 'WARPGATE_TRANSPORT_FLOOR_CLIENT';
const REQUEST_BYTES = 320; // a sign request: 10-byte header + ~300-byte Warp message
const ANSWER_BYTES = 106; // a signature answer: header + 96-byte BLS signature
const SLICE = 100; // what src/aggregator/fan-out.ts sends per event-loop turn
// Warm-up is counted in request/answer pairs, not rounds: after 5 rounds of 100 connections the
// figures were still twice the steady state (JIT tier-up and GC sizing follow message counts).
const WARMUP_PAIRS = 50_000;
const ROUND_TIMEOUT_MS = 30_000;

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

/** Client host: opens its share of the connections and echoes a fixed answer to every frame. */
function serveClients(): void {
  const sockets: WebSocket[] = [];
  // One shared answer: ws copies it while masking (it is marked read-only), as a fresh one would be.
  const answer = Buffer.alloc(ANSWER_BYTES, 7);
  serveHost(
    {
      connect: async (req: { url: string; count: number }) => {
        // Batches of 100, so that the service's accept backlog never overflows.
        for (let done = 0; done < req.count; done += SLICE) {
          const batch = Array.from({ length: Math.min(SLICE, req.count - done) }, () => new WebSocket(req.url, { perMessageDeflate: false }));
          for (const ws of batch) ws.on('message', () => ws.send(answer));
          await Promise.all(batch.map((ws) => once(ws, 'open')));
          sockets.push(...batch);
        }
        return sockets.length;
      },
      cpu: async () => process.cpuUsage(),
    },
    async () => {
      for (const ws of sockets) ws.terminate();
    },
  );
}

type Variant = 'sync' | 'sliced';

async function runService(o: FloorOptions): Promise<void> {
  const loadStart = os.loadavg();
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, clientTracking: false });
  await once(wss, 'listening');
  const { port } = wss.address() as { port: number };
  const peers: WebSocket[] = [];
  let answered = 0;
  let roundDone: (() => void) | undefined;
  wss.on('connection', (ws) => {
    peers.push(ws);
    ws.on('message', () => {
      if (++answered === peers.length) roundDone?.();
    });
  });

  process.env[ROLE_ENV] = '1'; // inherited by the forks only: cleared again right after
  const hosts = Array.from({ length: o.clientProcesses }, (_, i) => HostProcess.start(`client-${i}`, 'bench/transport-floor.ts'));
  delete process.env[ROLE_ENV];
  try {
    const share = (i: number): number => Math.floor(o.connections / o.clientProcesses) + (i < o.connections % o.clientProcesses ? 1 : 0);
    await Promise.all(hosts.map((h, i) => h.call({ type: 'connect', url: `ws://127.0.0.1:${port}`, count: share(i) }, 120_000)));
    while (peers.length < o.connections) await new Promise((r) => setTimeout(r, 10));

    // One frame for everyone, like the floor it is: no per-peer header to build.
    const request = Buffer.alloc(REQUEST_BYTES, 1);
    const round = async (variant: Variant): Promise<void> => {
      answered = 0;
      const done = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`round: ${answered}/${peers.length} answers after ${ROUND_TIMEOUT_MS} ms`)), ROUND_TIMEOUT_MS);
        roundDone = () => (clearTimeout(timer), resolve());
      });
      if (variant === 'sync') {
        for (const ws of peers) ws.send(request);
      } else {
        // As warpgate does: answers that arrived meanwhile are read between slices.
        for (let i = 0; i < peers.length; i += SLICE) {
          if (i > 0) await new Promise((r) => setImmediate(r));
          for (let j = i; j < Math.min(i + SLICE, peers.length); j++) peers[j]!.send(request);
        }
      }
      await done;
    };
    const clientsCpu = async (): Promise<number> => {
      const usages = await Promise.all(hosts.map((h) => h.call<NodeJS.CpuUsage>({ type: 'cpu' }, 10_000)));
      return usages.reduce((sum, u) => sum + cpuMs(u), 0);
    };

    // The variant timed first paid for JIT and GC warm-up for hundreds of rounds (same work at 100
    // connections, 50% more CPU), so both warm up first and then alternate in blocks of 10 rounds.
    const variants = ['sync', 'sliced'] as const;
    const warmupRounds = Math.max(5, Math.ceil(WARMUP_PAIRS / o.connections));
    for (const v of variants) for (let r = 0; r < warmupRounds; r++) await round(v);
    const acc = variants.map(() => ({ wall: [] as number[], service: 0, clients: 0 }));
    for (let done = 0; done < o.rounds; done += 10) {
      for (const [k, v] of variants.entries()) {
        const a = acc[k]!;
        const clientsBefore = await clientsCpu();
        for (let r = done; r < Math.min(done + 10, o.rounds); r++) {
          const cpu = process.cpuUsage();
          const t = performance.now();
          await round(v);
          a.wall.push(performance.now() - t);
          a.service += cpuMs(process.cpuUsage(cpu));
        }
        a.clients += (await clientsCpu()) - clientsBefore;
      }
    }
    const r3 = (ms: number): number => Math.round(ms * 1000) / 1000;
    const results = variants.map((variant, k) => ({
      connections: o.connections,
      variant,
      wallMs: summarize(acc[k]!.wall),
      serviceCpuMsPerRound: r3(acc[k]!.service / o.rounds),
      clientsCpuMsPerRound: r3(acc[k]!.clients / o.rounds),
      totalCpuMsPerRound: r3((acc[k]!.service + acc[k]!.clients) / o.rounds),
    }));
    const loadEnd = os.loadavg();
    const fmt = (n: number): string => n.toFixed(2);
    const rows = results.map((r) => `| ${r.connections} | ${r.variant === 'sync' ? 'one loop' : `slices of ${SLICE}`} | ${fmt(r.wallMs.p50)} / ${fmt(r.wallMs.p90)} | ${fmt(r.serviceCpuMsPerRound)} | ${fmt(r.clientsCpuMsPerRound)} | ${fmt(r.totalCpuMsPerRound)} |`);
    process.stdout.write(`| connections | variant | wall ms p50 / p90 | service CPU ms/round | clients CPU ms/round | total CPU ms/round |
|---:|---|---:|---:|---:|---:|
${rows.join('\n')}

${o.rounds} rounds per variant (alternating blocks of 10) after ${warmupRounds} warm-up rounds each, ${o.clientProcesses} client processes; ${os.cpus().length} CPUs, node ${process.version}; load average ${loadStart.map(fmt).join(' ')} at start, ${loadEnd.map(fmt).join(' ')} at end
`);
    if (o.json) {
      const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', node: process.version, loadavgStart: loadStart, loadavgEnd: loadEnd };
      mkdirSync(dirname(o.json), { recursive: true });
      writeFileSync(o.json, `${JSON.stringify({ options: { ...o, warmupRounds, requestBytes: REQUEST_BYTES, answerBytes: ANSWER_BYTES, slice: SLICE }, machine, results }, null, 2)}\n`);
    }
  } finally {
    await Promise.all(hosts.map((h) => h.stop()));
    for (const ws of peers) ws.terminate();
    wss.close();
  }
}

// Importing this module (the unit test does) runs nothing; only node's entry point does.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.env[ROLE_ENV]) serveClients();
  else await runService(parseOrExit(parseFloorArgs, FLOOR_USAGE));
}
