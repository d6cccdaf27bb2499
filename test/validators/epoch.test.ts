// ACP-181 epoch arithmetic on an epoch as avalanchego reports it (vms/proposervm/service.md).
import { describe, expect, it } from 'vitest';
import { parseCurrentEpoch } from '../../src/node/epoch-results.js';
import { epochCacheDeadlineMs, epochExpiryMs, MAINNET_EPOCH_DURATION_MS, MAX_CLOCK_SKEW_MS } from '../../src/validators/epoch.js';

// The example response in avalanchego's vms/proposervm/service.md (json.Uint64: quoted decimals).
const DOCUMENTED_EPOCH = { number: '56', startTime: '1755802182', pChainHeight: '21857141' };

describe('epoch expiry', () => {
  const epoch = parseCurrentEpoch(DOCUMENTED_EPOCH);

  it('is startTime + D, in unix milliseconds', () => {
    expect(epochExpiryMs(epoch, MAINNET_EPOCH_DURATION_MS)).toBe(1755802182_000 + 300_000);
    expect(epochExpiryMs(epoch, 0)).toBe(1755802182_000);
    expect(() => epochExpiryMs(epoch, -1)).toThrow(RangeError);
    expect(() => epochExpiryMs(epoch, 0.5)).toThrow(RangeError);
  });

  it('the cache deadline is the expiry while it is ahead, else now + the minimum refresh', () => {
    const expiry = epochExpiryMs(epoch, MAINNET_EPOCH_DURATION_MS);
    expect(epochCacheDeadlineMs(epoch, MAINNET_EPOCH_DURATION_MS, expiry - 60_000, 2_000)).toBe(expiry);
    expect(epochCacheDeadlineMs(epoch, MAINNET_EPOCH_DURATION_MS, expiry - 1_000, 2_000)).toBe(expiry + 1_000);
    // An idle chain: the epoch is past its expiry and still reported.
    expect(epochCacheDeadlineMs(epoch, MAINNET_EPOCH_DURATION_MS, expiry + 3_600_000, 2_000)).toBe(expiry + 3_602_000);
    // Ended early by a block up to avalanchego's maxSkew ahead of our clock.
    expect(epochCacheDeadlineMs(epoch, MAINNET_EPOCH_DURATION_MS, expiry - 60_000, 2_000, MAX_CLOCK_SKEW_MS)).toBe(expiry - 10_000);
  });
});

