// Where the aggregator reads a destination chain's epoch when the relayer delivers there: a
// relayer chain's own node (its rpcUrl without /rpc), unless `destinations` names the chain.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { destinationEndpoints } from '../../src/service/destinations.js';

const L1 = '28oExF4H5GAA1psdtjATpVazQrUoAqxHv5GDhd4vjHrysoVhFZ';
const C = 'MVGujutXbsKRA7Rotb9gMSRrSY3qi5SQevwpefC3Y7uiz8oUV';
const TELEPORTER = '0xc9df8250f64ded102548d8ba0b6acd0587d50a91';

describe('destinationEndpoints', () => {
  it("adds each relayer chain's base URL, after the configured destinations, which win", () => {
    const config = loadConfig({
      env: {},
      overrides: {
        destinations: [{ blockchainId: C, rpcUrl: 'http://10.0.0.1:9650/ext/bc/C' }],
        'relayer.chains': [
          { blockchainId: C, rpcUrl: 'http://127.0.0.1:9650/ext/bc/C/rpc', teleporterAddress: TELEPORTER },
          { blockchainId: L1, rpcUrl: `http://127.0.0.1:9652/ext/bc/${L1}/rpc`, teleporterAddress: TELEPORTER },
          { blockchainId: '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm', rpcUrl: 'https://rpc.example.org/l1', teleporterAddress: TELEPORTER },
        ],
      },
    });
    expect(destinationEndpoints(config)).toEqual([
      { blockchainId: C, rpcUrl: 'http://10.0.0.1:9650/ext/bc/C' },
      { blockchainId: L1, rpcUrl: `http://127.0.0.1:9652/ext/bc/${L1}` },
    ]);
  });
});
