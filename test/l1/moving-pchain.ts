// A P-Chain node whose state moves while a test watches: blocks land when the test says (for
// instance between two of a client's calls), each at a later time, and the chain refuses what the
// P-Chain refuses (registering a validator whose expiry is not ahead of the block's time). It
// serves the calls the signer's P-Chain policy makes, in avalanchego's JSON-RPC shapes: /ext/bc/P
// (platform.getL1Validator, platform.getTimestamp) and /ext/info (info.getNetworkID,
// info.isBootstrapped); every error is HTTP 200 with code -32000, as gorilla/rpc answers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cb58Encode } from '../../src/warp/cb58.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { closeServer, type Closer } from '../peers/helpers.js';

/** The L1 every validator of this P-Chain validates. */
const L1_SUBNET = cb58Encode(new Uint8Array(32).fill(0x5a));

export interface MovingPChain {
  url: string;
  /** Every call, `service.method`, oldest first. */
  calls: string[];
  networkId: number;
  bootstrapped: boolean;
  /** The time of the last accepted block, Unix seconds. */
  readonly time: bigint;
  /** Accepts a block at `time` (later than the last one) that registers a validator expiring at `expiry`. */
  registerBlock(time: bigint, validationId: Uint8Array, expiry: bigint, weight?: bigint): void;
  /** Accepts an empty block at `time`. */
  emptyBlock(time: bigint): void;
  /** Called once each platform.* answer has been read from the state, before it is sent. */
  afterAnswer: ((method: string) => void) | undefined;
}

export async function movingPChain(closer: Closer, opts: { networkId: number; time: bigint }): Promise<MovingPChain> {
  const validators = new Map<string, { weight: bigint; minNonce: bigint }>();
  let time = opts.time;
  const advance = (to: bigint): void => {
    if (to <= time) throw new Error(`a block at ${to} cannot follow one at ${time}`);
    time = to;
  };
  const chain: MovingPChain = {
    url: '',
    calls: [],
    networkId: opts.networkId,
    bootstrapped: true,
    get time() {
      return time;
    },
    registerBlock(at, validationId, expiry, weight = 100n) {
      // avalanchego's RegisterL1ValidatorTx: the expiry must still be ahead of the block's time.
      if (expiry <= at) throw new Error(`expiry ${expiry} is not after the block time ${at}: the P-Chain refuses this registration`);
      advance(at);
      validators.set(bytesToHex(validationId), { weight, minNonce: 0n });
    },
    emptyBlock(at) {
      advance(at);
    },
    afterAnswer: undefined,
  };

  const answer = (method: string, params: Record<string, unknown>): { result: unknown } | { error: { code: number; message: string } } => {
    switch (method) {
      case 'info.getNetworkID':
        return { result: { networkID: String(chain.networkId) } };
      case 'info.isBootstrapped':
        return params.chain === 'P' ? { result: { isBootstrapped: chain.bootstrapped } } : { error: { code: -32000, message: `there is no chain with alias/ID '${String(params.chain)}'` } };
      case 'platform.getTimestamp':
        return { result: { timestamp: new Date(Number(time) * 1000).toISOString().replace('.000Z', 'Z') } };
      case 'platform.getL1Validator': {
        const id = String(params.validationID);
        const found = [...validators].find(([hex]) => cb58Encode(Uint8Array.from(Buffer.from(hex, 'hex'))) === id);
        if (!found) return { error: { code: -32000, message: `fetching L1 validator "${id}" failed: not found` } };
        // The fields of avalanchego's GetL1ValidatorReply that the policy reads, the L1 included.
        return { result: { subnetID: L1_SUBNET, weight: found[1].weight.toString(), minNonce: found[1].minNonce.toString(), balance: '0', height: '1' } };
      }
      default:
        return { error: { code: -32000, message: `the method ${method} does not exist/is not available` } };
    }
  };

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: unknown; method: string; params?: Record<string, unknown> };
      chain.calls.push(method);
      const expected = req.url === '/ext/info' ? 'info.' : 'platform.';
      const reply = method.startsWith(expected) ? answer(method, params ?? {}) : { error: { code: -32000, message: `the method ${method} does not exist/is not available` } };
      // The answer is read from the state as it was; blocks the test lands now come after it.
      if (method.startsWith('platform.')) chain.afterAnswer?.(method);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...reply }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closer.add(server, closeServer);
  chain.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return chain;
}
