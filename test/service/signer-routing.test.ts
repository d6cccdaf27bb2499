// The routing's request path on its own, with scripted transports: the signer first, p2p when the
// signer turned out not to be connected after all (nothing was sent), each transport's outcome
// counted once (a deadline given up on as a timeout), and penalties to whoever answered last.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { PeerAnswer } from '../../src/aggregator/peer-source.js';
import type { P2PAnswer } from '../../src/p2p/index.js';
import type { PeerPool } from '../../src/peers/pool.js';
import { PeerRequestError } from '../../src/peers/errors.js';
import type { P2PTransport } from '../../src/service/p2p.js';
import { SignerRouting } from '../../src/service/signer-routing.js';
import { Metrics } from '../../src/service/metrics.js';
import type { ValidatorDirectory } from '../../src/service/validator-directory.js';
import type { AskTicket, CancelWhy } from '../../src/util/ask.js';

const KEY = 'ab'.repeat(48);
const NODE = 'NodeID-111111111111111111116DBWJs';
const req = { message: new Uint8Array(40), justification: new Uint8Array() };
const SIG = new Uint8Array(96).fill(7);

/** A transport whose requests wait for the test; `connected` is what isConnected says. */
function scripted<A>() {
  const asked: { to: string; done: (e: Error | undefined, a: A | undefined) => void; cancelled?: CancelWhy }[] = [];
  const penalized: string[] = [];
  return {
    connected: true,
    asked,
    penalized,
    isConnected(): boolean {
      return this.connected;
    },
    ask(to: string, _req: unknown, _timeoutMs: number, done: (e: Error | undefined, a: A | undefined) => void): AskTicket {
      const entry: (typeof asked)[number] = { to, done };
      asked.push(entry);
      return { cancel: (why) => (entry.cancelled = why) };
    },
    penalize(to: string): void {
      penalized.push(to);
    },
  };
}

function routing() {
  const ws = scripted<PeerAnswer>();
  const p2p = scripted<P2PAnswer>();
  const directory = { nodeIdsOf: () => [NODE] } as unknown as ValidatorDirectory;
  const counted: string[] = [];
  const r = new SignerRouting(ws as unknown as PeerPool, p2p as unknown as P2PTransport, directory, pino({ level: 'silent' }), {
    request: (transport, outcome) => counted.push(`${transport} ${outcome}`),
  });
  return { r, ws, p2p, counted };
}

describe('SignerRouting.ask', () => {
  it('asks the signer; when it was not connected after all, p2p, counting each transport once', () => {
    const { r, ws, p2p, counted } = routing();
    const heard: unknown[] = [];
    r.ask(KEY, req, 1_000, (err, a) => heard.push(err ?? a));
    expect(ws.asked.map((a) => a.to)).toEqual([KEY]);
    ws.asked[0]!.done(new PeerRequestError('not-connected', KEY, 'gone'), undefined);
    expect(p2p.asked.map((a) => a.to)).toEqual([NODE]);
    p2p.asked[0]!.done(undefined, { kind: 'signature', signature: SIG });
    expect(heard).toEqual([{ kind: 'signature', signature: SIG }]);
    expect(counted).toEqual(['ws failed', 'p2p signature']);
    // The p2p node answered for the key last: a penalty goes to it.
    r.penalize(KEY, 'bad');
    expect(p2p.penalized).toEqual([NODE]);
    expect(ws.penalized).toEqual([]);
  });

  it('over p2p when the signer is not connected; when p2p had no connection after all, the signer that has connected since', () => {
    const { r, ws, p2p, counted } = routing();
    ws.connected = false;
    const heard: unknown[] = [];
    r.ask(KEY, req, 1_000, (err, a) => heard.push(err ?? a));
    expect(p2p.asked.map((a) => a.to)).toEqual([NODE]);
    ws.connected = true;
    p2p.asked[0]!.done(new PeerRequestError('not-connected', NODE, 'gone'), undefined);
    expect(ws.asked.map((a) => a.to)).toEqual([KEY]);
    ws.asked[0]!.done(undefined, { kind: 'signature', signature: SIG });
    expect(heard).toEqual([{ kind: 'signature', signature: SIG }]);
    expect(counted).toEqual(['p2p failed', 'ws signature']);
    // Neither connected: the p2p failure is the answer, and nothing is tried twice.
    ws.connected = false;
    r.ask(KEY, req, 1_000, (err, a) => heard.push(err ?? a));
    const notConnected = new PeerRequestError('not-connected', NODE, 'gone');
    p2p.asked[1]!.done(notConnected, undefined);
    expect(heard[1]).toBe(notConnected);
    expect(ws.asked).toHaveLength(1);
  });

  it('a p2p AppError is a refusal naming the code; another failure passes through as it is', () => {
    const { r, ws, p2p, counted } = routing();
    ws.connected = false;
    const heard: unknown[] = [];
    r.ask(KEY, req, 1_000, (err, a) => heard.push(err ?? a));
    r.ask(KEY, req, 1_000, (err, a) => heard.push(err ?? a));
    p2p.asked[0]!.done(undefined, { kind: 'refused', code: -3, reason: 'not a validator' });
    const timeout = Object.assign(new Error('late'), { reason: 'timeout' });
    p2p.asked[1]!.done(timeout, undefined);
    expect(heard[0]).toEqual({ kind: 'refused', reason: `${NODE} refused with AppError -3 (not-validator): not a validator` });
    expect(heard[1]).toBe(timeout);
    expect(counted).toEqual(['p2p refused', 'p2p timeout']);
  });

  it('cancelled, cancels the transport’s request, counts a deadline as a timeout and never calls back', () => {
    const { r, ws, counted } = routing();
    const heard: unknown[] = [];
    const a = r.ask(KEY, req, 1_000, (err, x) => heard.push(err ?? x));
    const b = r.ask(KEY, req, 1_000, (err, x) => heard.push(err ?? x));
    a.cancel('timeout');
    b.cancel('cancelled');
    b.cancel('cancelled');
    ws.asked[0]!.done(undefined, { kind: 'signature', signature: SIG });
    expect(ws.asked.map((x) => x.cancelled)).toEqual(['timeout', 'cancelled']);
    expect(counted).toEqual(['ws timeout', 'ws cancelled']);
    expect(heard).toEqual([]);
  });
});

describe('AppErrors from a malicious validator (issue 39)', () => {
  it('name their codes from a fixed set, so neither the metric nor the log limiter grows with new codes; their text is cut', async () => {
    const metrics = new Metrics();
    // Lengths only: the old code's lines were megabytes each.
    const log: number[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void log.push(line.length) });
    const r = new SignerRouting(scripted<PeerAnswer>() as unknown as PeerPool, null, { nodeIdsOf: () => [] } as unknown as ValidatorDirectory, logger, metrics.routingEvents);
    // One validator answering 3,000 aggregations, each with a new code, and a 1.5 MB message.
    const huge = 'x'.repeat(1_500_000);
    let longest = 0;
    let unexpected = '';
    // Half on the P-Chain, half on an EVM chain: each VM's codes are named apart.
    const pChain = new Uint8Array(32);
    const evmChain = new Uint8Array(32).fill(7);
    for (let code = -1_000; code < 2_000; code++) {
      const answer = r.p2pRefusal(NODE, code % 2 === 0 ? pChain : evmChain, { kind: 'refused', code, reason: huge });
      const reason = answer.kind === 'refused' ? answer.reason : '';
      longest = Math.max(longest, reason.length);
      if (code === -1) unexpected = reason;
    }
    r.close();
    const series = (await metrics.registry.getSingleMetric('warpgate_p2p_app_errors_total')!.get()).values.map((v) => String(v.labels.code));
    // P-Chain codes 1-17 (even ones here, from the P-Chain), EVM codes 1-4 (odd ones, from the EVM chain).
    const pchainCodes = Array.from({ length: 17 }, (_, i) => i + 1).filter((c) => c % 2 === 0);
    const evmCodes = [1, 3];
    const named = ['unexpected', 'unregistered-handler', 'not-validator', 'throttled', 'other', ...pchainCodes.map((c) => `pchain-${c}`), ...evmCodes.map((c) => `evm-${c}`)];
    expect(series.sort()).toEqual(named.sort());
    // The limiter keeps its lines per name: at most a few per name, each short.
    expect(log.length).toBeLessThanOrEqual(named.length * 10 + 10);
    expect(Math.max(...log)).toBeLessThan(2_000);
    expect(longest).toBeLessThan(700);
    expect(unexpected).toMatch(/^NodeID-\S+ refused with AppError -1 \(unexpected\): x{512}… \(cut, 1500000 characters\)$/);
  });
});
