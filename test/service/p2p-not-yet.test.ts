// "Not yet" refusals: an EVM chain answers AppError 4 (block not accepted) or 3 (unknown message)
// for a message whose block it has not accepted or executed yet (vms/saevm/cchain/warp). Those
// validators are asked again with backoff until the request's deadline; a quorum still missing
// then is a 503 that says "not yet executed or unknown" with the count. P-Chain codes and other
// EVM codes are final (p2p-routing.test.ts 'AppErrors': each asked once).
import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/warp/hex.js';
import { scrape } from '../ops/helpers.js';
import { aggregate, closeWorld, messageHex, startWorld, until, verifiesIndependently, type World } from './p2p-world.js';

afterEach(closeWorld);

const connectedAll = (w: World): Promise<void> => until('every avalanchego validator to be connected', () => w.service.p2p!.connectedCount() === w.nodes.length);

describe('not-yet refusals from EVM chains', () => {
  it('are asked again until the block is accepted: the aggregation succeeds', async () => {
    // The block is accepted 400 ms after the first request for it: until then, AppError 4.
    let firstAskedAt: number | undefined;
    const w = await startWorld({
      seed: 'not-yet-then-yes',
      evmAccepted: () => {
        firstAskedAt ??= Date.now();
        return Date.now() - firstAskedAt > 400;
      },
      overrides: { 'aggregation.requestTimeoutMs': 10_000, 'aggregation.deadlineMs': 20_000 },
    });
    await connectedAll(w);
    const before = await scrape(w.service.url);
    const { status, body } = await aggregate(w.service, messageHex(w, 'accepted soon'));
    expect(status).toBe(201);
    await verifiesIndependently(w, body.signedMessage);
    const m = await scrape(w.service.url);
    expect(m.sum('warpgate_p2p_app_errors_total', { code: 'evm-4' }) - before.sum('warpgate_p2p_app_errors_total', { code: 'evm-4' })).toBeGreaterThanOrEqual(2);
    expect(w.log.records.some((r) => r.msg === 'avalanchego validator refused to sign' && r.appError === 'evm-4' && r.notYet === true)).toBe(true);
  });

  it('still refused at the deadline: a 503 that says "not yet executed or unknown" with the count', async () => {
    const w = await startWorld({ seed: 'not-yet-never', evmAccepted: () => false, overrides: { 'aggregation.requestTimeoutMs': 1_500, 'aggregation.deadlineMs': 5_000 } });
    await connectedAll(w);
    const { status, body } = await aggregate(w.service, messageHex(w, 'never accepted'));
    expect(status).toBe(503);
    expect(body.message).toMatch(/refused 3 \(3 of them: not yet executed or unknown/);
    expect(body.message).toMatch(/timed out 0/);
    // Each of the 3 validators (two of the 4 nodes are one merged validator) asked more than once: retried, not taken as final.
    const asked = w.nodes.map((n) => n.stats().refused);
    expect(asked.filter((n) => n >= 2).length, `refusals per node: ${asked.join(', ')}`).toBe(3);
  });
});
