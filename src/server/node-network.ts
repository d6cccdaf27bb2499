// The network a node serves (info.getNetworkID), asked once and remembered: it never changes
// while the node runs. Used where a request names no network (icm-services requests, P-Chain
// messages built from a justification) and to refuse messages for another network.
import { readBodyCapped } from '../util/read-body.js';
import { PChainError } from '../validators/pchain-client.js';

const INFO_TIMEOUT_MS = 5_000;
const INFO_MAX_BYTES = 64 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The node's network ID (info.getNetworkID), asked once and remembered: icm-services requests
 * name no network, and a P-Chain message must carry one. A failure is not remembered.
 */
export function nodeNetworkId(nodeBaseUrl: string): () => Promise<number> {
  let known: Promise<number> | undefined;
  const ask = async (): Promise<number> => {
    const method = 'info.getNetworkID';
    let body: unknown;
    try {
      const res = await fetch(`${nodeBaseUrl}/ext/info`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
        signal: AbortSignal.timeout(INFO_TIMEOUT_MS),
      });
      const text = await readBodyCapped(res, INFO_MAX_BYTES);
      if (text === null) throw new RangeError(`answer larger than ${INFO_MAX_BYTES} bytes`);
      body = JSON.parse(text);
    } catch (err) {
      if (err instanceof SyntaxError || err instanceof RangeError) throw new PChainError(method, 'bad-response', err.message, { cause: err });
      const timedOut = (err as Error).name === 'TimeoutError';
      throw new PChainError(method, timedOut ? 'timeout' : 'unreachable', timedOut ? `timeout after ${INFO_TIMEOUT_MS} ms` : (err as Error).message, { cause: err });
    }
    const result = isRecord(body) ? body.result : undefined;
    const id = isRecord(result) ? Number(result.networkID) : NaN;
    if (!Number.isInteger(id) || id < 1 || id > 0xffff_ffff) {
      throw new PChainError(method, 'bad-response', `unexpected answer: ${JSON.stringify(body).slice(0, 200)}`);
    }
    return id;
  };
  return () => {
    known ??= ask().catch((err: unknown) => {
      known = undefined;
      throw err;
    });
    return known;
  };
}
