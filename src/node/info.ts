// The node's info API (POST {node}/ext/info): which network it is on, whether it has
// bootstrapped a chain, and its upgrade schedule's epoch duration. Later: info.peers.
import { isRecord } from '../util/is-record.js';
import { parseEpochDurationMs } from './epoch-results.js';
import { JsonRpcTransport, type CallOptions, type NodeClientOptions } from './transport.js';

const PATH = '/ext/info';

function readNetworkId(result: unknown): number {
  // avalanchego writes it as a JSON string (json.Uint32); older docs show a number.
  const raw = isRecord(result) ? result.networkID : undefined;
  const id = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
  if (!Number.isInteger(id) || id < 1 || id > 0xffff_ffff) throw new Error(`networkID is not a network ID: ${JSON.stringify(raw)}`);
  return id;
}

function readBootstrapped(result: unknown): boolean {
  const value = isRecord(result) ? result.isBootstrapped : undefined;
  if (typeof value !== 'boolean') throw new Error(`isBootstrapped is not a boolean: ${JSON.stringify(value)}`);
  return value;
}

export class InfoClient {
  private readonly rpc: JsonRpcTransport;

  /** On a transport shared with the node's other APIs, or on one of its own. */
  constructor(node: JsonRpcTransport | NodeClientOptions) {
    this.rpc = node instanceof JsonRpcTransport ? node : new JsonRpcTransport(node);
  }

  /** The endpoint, for messages to whoever runs the node. */
  get url(): string {
    return this.rpc.baseUrl + PATH;
  }

  /** info.getNetworkID: the network the node is on (1 mainnet, 5 fuji, …). */
  getNetworkId(opts: CallOptions = {}): Promise<number> {
    return this.rpc.typed(PATH, 'info.getNetworkID', {}, readNetworkId, opts);
  }

  /**
   * info.upgrades' graniteEpochDuration (ACP-181's epoch duration D), in milliseconds; null for a
   * node from before Granite, whose chains have no epochs.
   */
  epochDurationMs(opts: CallOptions = {}): Promise<number | null> {
    return this.rpc.typed(PATH, 'info.upgrades', {}, parseEpochDurationMs, opts);
  }

  /** info.isBootstrapped: whether the node has caught up with `chain` (an alias such as 'P', or an ID). */
  isBootstrapped(chain: string, opts: CallOptions = {}): Promise<boolean> {
    return this.rpc.typed(PATH, 'info.isBootstrapped', { chain }, readBootstrapped, opts);
  }
}

/**
 * The node's network ID, asked once and remembered: it never changes while the node runs, and
 * every request that names no network needs it. Concurrent askers share the call in flight, each
 * waiting with its own deadline (util/abortable.ts untilAborted), so one leaving does not end it
 * for the others. A failure is not remembered: the next asker tries again.
 */
export function rememberNetworkId(info: InfoClient): () => Promise<number> {
  let known: Promise<number> | undefined;
  return () => {
    known ??= info.getNetworkId().catch((err: unknown) => {
      known = undefined;
      throw err;
    });
    return known;
  };
}
