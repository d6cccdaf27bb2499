// `warpgate devnet --port P` with P in the kernel's ephemeral range: the devnet's own listeners
// (the P-Chain node, every validator) ask the kernel for any port, and were once handed P before
// the service bound it (`port: 127.0.0.1:P is already in use`). Here the kernel is made to hand
// out P every time it is free (test/fixtures/offer-port.mjs), so the collision is certain unless
// the devnet holds P from before its first other listener.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/warp/hex.js';
import { parseCb58Id } from '../../src/warp/cb58.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { startDevnetProcess, type DevnetProcess } from './devnet-process.js';

const OFFER_PORT_HOOK = new URL('../fixtures/offer-port.mjs', import.meta.url).href;

/** A port the kernel just handed out for port 0 (so one of its ephemeral range), free again. */
async function ephemeralPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function offeringEnv(port: number): NodeJS.ProcessEnv {
  return { ...process.env, WARPGATE_TEST_OFFER_PORT: String(port), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${OFFER_PORT_HOOK}`.trim() };
}

let devnet: DevnetProcess | undefined;
afterEach(async () => {
  if (devnet && devnet.proc.exitCode === null && devnet.proc.signalCode === null) {
    devnet.proc.kill('SIGKILL');
    await devnet.exited;
  }
  devnet = undefined;
});

describe('warpgate devnet --port P in the ephemeral range', () => {
  it('the hook does hand P to a listener that asks for any port (so the test below can fail)', async () => {
    const port = await ephemeralPort();
    const script = "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})";
    const run = spawnSync(process.execPath, ['-e', script], { env: offeringEnv(port), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(Number(run.stdout.trim())).toBe(port);
  });

  it('serves on P although every other listener of the devnet is offered P first', async () => {
    const port = await ephemeralPort();
    devnet = await startDevnetProcess(['--port', String(port), '--validators', '8', '--transport', 'mixed'], { env: offeringEnv(port), readyMs: 80_000 });
    expect(new URL(devnet.info.url).port).toBe(String(port));
    // The validators and the P-Chain node listen elsewhere, and the service answers on P.
    expect(new URL(devnet.info.pchainUrl).port).not.toBe(String(port));
    for (const peer of devnet.info.p2p as { port: number }[]) expect(peer.port).not.toBe(port);
    const message = newUnsignedMessage(devnet.info.networkId, parseCb58Id(devnet.info.blockchainId), encodeAddressedCall(new Uint8Array(20), new TextEncoder().encode('on the port asked for')));
    const res = await fetch(`${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: bytesToHex(message.bytes) }),
      signal: AbortSignal.timeout(30_000),
    });
    expect(res.status).toBe(201);
    devnet.proc.kill('SIGTERM');
    expect(await devnet.exited).toEqual([0, null]);
  }, 120_000);
});
