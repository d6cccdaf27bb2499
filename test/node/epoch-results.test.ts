// Reading ACP-181 epochs from the shapes avalanchego sends: proposervm.getCurrentEpoch as
// documented in vms/proposervm/service.md, info.upgrades as upgrade.Config marshals it.
import { describe, expect, it } from 'vitest';
import { EpochResultError, parseCurrentEpoch, parseEpochDurationMs } from '../../src/node/epoch-results.js';
import { parseJsonLossless } from '../../src/node/json.js';
import { isGraniteEpoch, MAINNET_EPOCH_DURATION_MS } from '../../src/validators/epoch.js';

// The example response in avalanchego's vms/proposervm/service.md (json.Uint64: quoted decimals).
const DOCUMENTED_EPOCH = { number: '56', startTime: '1755802182', pChainHeight: '21857141' };

// The mainnet example of info.upgrades in avalanchego's api/info/service.md. That example predates
// the graniteEpochDuration field; a Granite node adds it, as Go writes a time.Duration: nanoseconds.
const DOCUMENTED_UPGRADES = {
  apricotPhase4MinPChainHeight: 793005,
  durangoTime: '2024-03-06T16:00:00Z',
  etnaTime: '2024-12-16T17:00:00Z',
  fortunaTime: '2025-04-08T15:00:00Z',
  graniteTime: '2025-11-19T16:00:00Z',
  heliconTime: '9999-12-01T00:00:00Z',
};

describe('parseCurrentEpoch', () => {
  it('reads the documented answer; startTime stays unix seconds', () => {
    const epoch = parseCurrentEpoch(DOCUMENTED_EPOCH);
    expect(epoch).toEqual({ number: 56, startTime: 1755802182, pChainHeight: 21857141 });
    expect(isGraniteEpoch(epoch)).toBe(true);
    // 2025-08-21T18:49:42Z: a plausible date only if the unit is seconds.
    expect(new Date(epoch.startTime * 1000).toISOString()).toBe('2025-08-21T18:49:42.000Z');
  });

  it('accepts bare JSON numbers too (json.Uint64 decodes both)', () => {
    expect(parseCurrentEpoch({ number: 56, startTime: 1755802182, pChainHeight: 21857141 })).toEqual(
      parseCurrentEpoch(DOCUMENTED_EPOCH),
    );
  });

  it('the zero epoch before Granite is read, and is not a Granite epoch', () => {
    const epoch = parseCurrentEpoch({ number: '0', startTime: '0', pChainHeight: '0' });
    expect(epoch).toEqual({ number: 0, startTime: 0, pChainHeight: 0 });
    expect(isGraniteEpoch(epoch)).toBe(false);
  });

  it.each([
    ['number', { ...DOCUMENTED_EPOCH, number: undefined }, /number missing/],
    ['startTime', { ...DOCUMENTED_EPOCH, startTime: '-1' }, /startTime '-1' is not a non-negative integer/],
    ['startTime', { ...DOCUMENTED_EPOCH, startTime: 1.5 }, /startTime 1\.5/],
    ['startTime', { ...DOCUMENTED_EPOCH, startTime: '1755802182000000000' }, /startTime 1755802182000000000 is beyond/],
    ['pChainHeight', { ...DOCUMENTED_EPOCH, pChainHeight: '0x10' }, /pChainHeight '0x10'/],
    ['pChainHeight', { ...DOCUMENTED_EPOCH, pChainHeight: ' 5' }, /pChainHeight ' 5'/],
    ['pChainHeight', { ...DOCUMENTED_EPOCH, pChainHeight: '9007199254740993' }, /pChainHeight 9007199254740993 is beyond/],
    ['pChainHeight', { ...DOCUMENTED_EPOCH, pChainHeight: null }, /pChainHeight null/],
    ['result', [1, 2, 3], /result \[1,2,3\] is not an object/],
    ['result', null, /result null is not an object/],
  ])('a bad %s is an EpochResultError naming it', (field, result, message) => {
    let caught: unknown;
    try {
      parseCurrentEpoch(result);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(EpochResultError);
    expect((caught as EpochResultError).field).toBe(field);
    expect((caught as EpochResultError).method).toBe('proposervm.getCurrentEpoch');
    expect((caught as Error).message).toMatch(/^proposervm\.getCurrentEpoch result: /);
    expect((caught as Error).message).toMatch(message);
  });
});

describe('parseEpochDurationMs (info.upgrades)', () => {
  it('reads graniteEpochDuration as nanoseconds', () => {
    expect(parseEpochDurationMs({ ...DOCUMENTED_UPGRADES, graniteEpochDuration: 300_000_000_000 })).toBe(MAINNET_EPOCH_DURATION_MS);
    // upgrade.Default (local networks): 30 s; tmpnet's test networks: 4 s.
    expect(parseEpochDurationMs({ graniteEpochDuration: 30_000_000_000 })).toBe(30_000);
    expect(parseEpochDurationMs({ graniteEpochDuration: 4_000_000_000 })).toBe(4_000);
    expect(parseEpochDurationMs({ graniteEpochDuration: '300000000000' })).toBe(300_000);
  });

  it('rounds sub-millisecond durations down, so a cached epoch never outlives its end', () => {
    expect(parseEpochDurationMs({ graniteEpochDuration: 1_999_999 })).toBe(1);
    expect(parseEpochDurationMs({ graniteEpochDuration: 0 })).toBe(0);
  });

  it('keeps a large duration exact through the lossless JSON reader', () => {
    const text = '{"graniteEpochDuration": 9223372036854775807}';
    expect(parseEpochDurationMs(parseJsonLossless(text))).toBe(9223372036854);
  });

  it('is null when the node predates Granite (the documented example has no such field)', () => {
    expect(parseEpochDurationMs(DOCUMENTED_UPGRADES)).toBeNull();
  });

  it.each([
    [{ graniteEpochDuration: -1 }, /graniteEpochDuration -1 is not a non-negative integer/],
    [{ graniteEpochDuration: '5m' }, /graniteEpochDuration '5m'/],
    [{ graniteEpochDuration: true }, /graniteEpochDuration true/],
    [{ graniteEpochDuration: '9223372036854775808' }, /beyond a Go time\.Duration/],
    ['upgrades', /result 'upgrades' is not an object/],
  ])('a bad answer is an EpochResultError: %j', (result, message) => {
    expect(() => parseEpochDurationMs(result)).toThrow(EpochResultError);
    expect(() => parseEpochDurationMs(result)).toThrow(/^info\.upgrades result: /);
    expect(() => parseEpochDurationMs(result)).toThrow(message);
  });
});
