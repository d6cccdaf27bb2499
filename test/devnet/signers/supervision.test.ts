// A long-running devnet heals: signer host processes killed with SIGKILL are started again on
// their ports, the service redials them, /ready turns 200 again and aggregations succeed. A host
// that cannot start (its port taken) is given up on after a bounded number of tries, loudly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../../src/devnet/devnet.js';
import { CapturedLog, postJson, request, waitFor } from '../../ops/helpers.js';

const log = new CapturedLog();
let devnet: Devnet;

beforeAll(async () => {
  devnet = await startDevnet({
    validators: 4,
    transport: 'ws',
    signerProcesses: 2,
    port: 0,
    logger: pino({ level: 'info' }, log),
    configOverrides: { 'workers.threads': 1 },
    signerRestart: { minDelayMs: 100, maxDelayMs: 400, maxQuickRestarts: 2 },
  });
});
afterAll(async () => {
  await devnet?.close();
});

const ready = () => request(`${devnet.info.url}/ready`);
const logged = (msg: string) => log.records.filter((r) => r.msg === msg);

describe('signer hosts killed with SIGKILL', () => {
  it('every host is restarted on its ports: /ready is 200 again and an aggregation succeeds', async () => {
    expect((await ready()).status).toBe(200);
    const before = devnet.signerHosts;
    expect(before).toHaveLength(2);
    const pids = before.map((c) => c.pid);
    for (const child of before) {
      const exited = once(child, 'exit');
      process.kill(child.pid!, 'SIGKILL');
      await exited;
    }
    await waitFor('the service to see every signer gone', () => (devnet.service.peers.connectedKeys().length === 0 ? true : undefined), 10_000, 5);

    const back = await waitFor(
      '/ready to answer 200 again',
      async () => {
        const r = await ready();
        return r.status === 200 ? r : undefined;
      },
      60_000,
      100,
    );
    expect(back.body.reasons).toEqual([]);
    const after = devnet.signerHosts;
    expect(after).toHaveLength(2);
    for (const child of after) expect(pids).not.toContain(child.pid);
    expect(devnet.signerSupervisors.map((s) => s.restarts)).toEqual([1, 1]);
    expect(logged('devnet signer host died; restarting it').map((r) => r.signal)).toEqual(['SIGKILL', 'SIGKILL']);
    expect(logged('devnet signer host restarted')).toHaveLength(2);

    const signed = await postJson(`${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: devnet.exampleMessageHex('after the restart') });
    expect(signed.status).toBe(201);
    await waitFor('every signer to be connected again', () => (devnet.service.peers.connectedKeys().length === devnet.info.signers ? true : undefined), 60_000, 100);
  }, 120_000);
});

describe('a host that cannot start again', () => {
  let squatter: Server | undefined;
  afterAll(async () => {
    await new Promise<void>((resolve) => (squatter ? squatter.close(() => resolve()) : resolve()));
  });

  it('is tried a bounded number of times, then given up on with an error naming why', async () => {
    const supervisor = devnet.signerSupervisors[0]!;
    const child = supervisor.process!;
    // One of its signers' ports, taken by someone else the moment the host is gone.
    const port = Number(new URL(devnet.config.peers.find((_, i) => i % 2 === 0)!.url).port);
    const exited = once(child, 'exit');
    process.kill(child.pid!, 'SIGKILL');
    await exited;
    // It accepts and drops at once: the service keeps redialing this port.
    squatter = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      squatter!.once('error', reject);
      squatter!.listen(port, '127.0.0.1', resolve);
    });

    await waitFor('the supervisor to give up', () => (supervisor.state === 'gave-up' ? true : undefined), 60_000, 20);
    const [gaveUp] = logged('devnet signer host keeps dying right after each start; giving up on it (its validators stay offline)');
    expect(gaveUp).toMatchObject({ level: 50, host: 'signer host 0', restartsInARow: 2 });
    expect(gaveUp!.failedToStart).toMatch(/EADDRINUSE/);
    expect(supervisor.process).toBeUndefined();
    // The other host is untouched.
    expect(devnet.signerSupervisors[1]!.state).toBe('running');
  }, 120_000);
});
