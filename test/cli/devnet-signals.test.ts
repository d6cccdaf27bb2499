// Ctrl-C in a terminal sends SIGINT to the whole foreground process group, and so does a
// `kill -INT -PGID`: the devnet and, unless they are kept apart, its validator host processes.
// The devnet must let the aggregations in flight finish (the service drains) and only then stop
// its validators; a second signal ends it at once. Its signers answer slowly here
// (--signer-delay-ms), so the aggregations are still in flight when the signal arrives.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/warp/hex.js';
import { parseCb58Id } from '../../src/warp/cb58.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { childrenOf } from '../ops/staging.js';
import { startDevnetProcess, type DevnetProcess } from './devnet-process.js';

// Under aggregation.requestTimeoutMs (2 s by default), so every answer counts.
const SIGNER_DELAY_MS = 1_200;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

let devnet: DevnetProcess | undefined;
afterEach(async () => {
  const d = devnet;
  devnet = undefined;
  if (!d) return;
  if (d.proc.exitCode === null && d.proc.signalCode === null) {
    d.proc.kill('SIGKILL');
    await d.exited;
  }
});

async function startSlowDevnet(): Promise<DevnetProcess> {
  // detached: the test signals the devnet's process group, as a terminal's Ctrl-C does.
  devnet = await startDevnetProcess(['--port', '0', '--validators', '4', '--transport', 'ws', '--signer-delay-ms', String(SIGNER_DELAY_MS)], { detached: true, readyMs: 60_000 });
  return devnet;
}

/** Sends `n` aggregations over fresh messages; resolves each with its status (0: no answer). */
function aggregations(d: DevnetProcess, n: number): Promise<number>[] {
  return Array.from({ length: n }, (_, i) => {
    const message = newUnsignedMessage(d.info.networkId, parseCb58Id(d.info.blockchainId), encodeAddressedCall(new Uint8Array(20), new TextEncoder().encode(`in flight ${i}`)));
    return fetch(`${d.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: bytesToHex(message.bytes) }),
      signal: AbortSignal.timeout(60_000),
    }).then(
      async (res) => (await res.arrayBuffer(), res.status),
      () => 0,
    );
  });
}

/** Waits until the service counts `n` aggregations under way. */
async function inFlight(d: DevnetProcess, n: number): Promise<void> {
  const until = Date.now() + 20_000;
  for (;;) {
    const text = await (await fetch(`${d.info.url}/metrics`)).text();
    const m = /^warpgate_aggregations_in_flight (\d+)/m.exec(text);
    if (m && Number(m[1]) >= n) return;
    if (Date.now() > until) throw new Error(`fewer than ${n} aggregations in flight: ${m?.[1]}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('warpgate devnet and signals to its process group', () => {
  it('SIGINT to the group: the aggregations in flight all finish with 201, then the devnet exits 0 leaving no hosts', async () => {
    const d = await startSlowDevnet();
    const hosts = childrenOf(d.proc.pid!);
    expect(hosts.length).toBeGreaterThan(0);
    const answers = aggregations(d, 5);
    await inFlight(d, 5);
    process.kill(-d.proc.pid!, 'SIGINT');
    expect(await Promise.all(answers)).toEqual([201, 201, 201, 201, 201]);
    expect(await d.exited).toEqual([0, null]);
    const deadline = Date.now() + 10_000;
    while (hosts.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(hosts.filter(alive)).toEqual([]);
  }, 120_000);

  it('SIGTERM to the group drains the same way', async () => {
    const d = await startSlowDevnet();
    const answers = aggregations(d, 3);
    await inFlight(d, 3);
    process.kill(-d.proc.pid!, 'SIGTERM');
    expect(await Promise.all(answers)).toEqual([201, 201, 201]);
    expect(await d.exited).toEqual([0, null]);
  }, 120_000);

  it('a second Ctrl-C exits at once (130), without waiting for the aggregations, and leaves no hosts', async () => {
    const d = await startSlowDevnet();
    const hosts = childrenOf(d.proc.pid!);
    const answers = aggregations(d, 3);
    await inFlight(d, 3);
    process.kill(-d.proc.pid!, 'SIGINT');
    // The second Ctrl-C, well before the signers answer: the graceful close would end in exit 0.
    await new Promise((r) => setTimeout(r, 100));
    process.kill(-d.proc.pid!, 'SIGINT');
    expect(await d.exited).toEqual([130, null]);
    expect(d.stderr()).toMatch(/SIGINT again: exiting now/);
    await Promise.all(answers);
    const deadline = Date.now() + 10_000;
    while (hosts.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(hosts.filter(alive)).toEqual([]);
  }, 120_000);
});
