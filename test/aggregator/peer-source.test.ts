// askViaPromise: a signer transport with a Promise-returning request function brought to the
// aggregator's callback contract (PeerSource.ask).
import { describe, expect, it } from 'vitest';
import { askViaPromise, REQUEST_CANCELLED, type PeerAnswer } from '../../src/aggregator/peer-source.js';

const req = { message: new Uint8Array(1), justification: new Uint8Array() };

describe('askViaPromise', () => {
  it('passes the answer or the failure to the callback once, with the timeout it was given', async () => {
    const seen: number[] = [];
    const ask = askViaPromise(async (pk, _req, { timeoutMs }) => {
      seen.push(timeoutMs);
      if (pk === 'bad') throw Object.assign(new Error('no answer'), { reason: 'timeout' });
      return { kind: 'signature', signature: new Uint8Array(96) };
    });
    const outcome = (pk: string) => new Promise<string>((resolve) => ask(pk, req, 750, (err, a) => resolve(err ? err.message : a!.kind)));
    expect(await outcome('good')).toBe('signature');
    expect(await outcome('bad')).toBe('no answer');
    expect(seen).toEqual([750, 750]);
  });

  it('cancelled, aborts the request with REQUEST_CANCELLED and never calls back', async () => {
    let signal: AbortSignal | undefined;
    let answer!: (a: PeerAnswer) => void;
    const ask = askViaPromise((_pk, _req, opts) => {
      signal = opts.signal;
      return new Promise<PeerAnswer>((resolve) => (answer = resolve));
    });
    const heard: unknown[] = [];
    const ticket = ask('k', req, 1_000, (err, a) => heard.push(err ?? a));
    ticket.cancel('cancelled');
    ticket.cancel('cancelled');
    expect(signal?.reason).toBe(REQUEST_CANCELLED);
    answer({ kind: 'refused', reason: 'late' });
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual([]);
  });
});
