// Startup time of `warpgate serve` without a config (the embedded devnet): from spawning
// `node bin/warpgate.js serve` in a checkout to the first 200 from its /ready, for one or more
// checkouts, runs alternating between them so machine load falls on each alike.
//   node --import tsx bench/startup.ts [--runs 7] CHECKOUT…      (default: this checkout)
// A checkout must be ready to run its bin (for this one: npm run build). Prints the median and
// every run per checkout.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** Milliseconds from spawn to the first /ready 200 (within 120 s), then SIGINT and the exit. */
async function timeToReady(checkout: string): Promise<number> {
  const port = await freePort();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WARPGATE_')));
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/warpgate.js', 'serve'], { cwd: checkout, env: { ...env, WARPGATE_PORT: String(port), WARPGATE_LOG_LEVEL: 'warn' }, stdio: 'ignore' });
  const exited = once(child, 'exit');
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${checkout}: warpgate exited ${child.exitCode} before it was ready`);
      if (performance.now() - started > 120_000) throw new Error(`${checkout}: not ready within 120 s`);
      const status = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status, () => 0);
      if (status === 200) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '7' } }, allowPositionals: true });
const runs = Number(values.runs);
const checkouts = positionals.length > 0 ? positionals : ['.'];
const times = new Map<string, number[]>(checkouts.map((c) => [c, []]));
for (let i = 0; i < runs; i++) for (const c of checkouts) times.get(c)!.push(await timeToReady(c));
for (const [c, ms] of times) {
  const sorted = [...ms].sort((a, b) => a - b);
  console.log(`${c}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms (runs: ${ms.map((m) => m.toFixed(0)).join(', ')})`);
}
