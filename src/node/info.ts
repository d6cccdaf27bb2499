// The node's info API (POST {node}/ext/info): which network it is on, whether it has
// bootstrapped a chain, its upgrade schedule's epoch duration, and the peers it is connected to
// with the addresses they signed.
import { isRecord } from '../util/is-record.js';
import { parseHostPort, type HostPort } from '../util/host-port.js';
import { parseNodeId } from '../warp/cb58.js';
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

function readNodeVersion(result: unknown): string {
  const value = isRecord(result) ? result.version : undefined;
  if (typeof value !== 'string' || value.length > 100) throw new Error(`version is not a version: ${JSON.stringify(value)?.slice(0, 100)}`);
  return value;
}

function readBootstrapped(result: unknown): boolean {
  const value = isRecord(result) ? result.isBootstrapped : undefined;
  if (typeof value !== 'boolean') throw new Error(`isBootstrapped is not a boolean: ${JSON.stringify(value)}`);
  return value;
}

/** One peer of info.peers: its NodeID and the address it signed in its Handshake, when it gave one. */
interface NodePeer {
  nodeId: string;
  /**
   * `publicIP`: the address the peer claimed and signed (network/peer/info.go). Absent when the
   * peer claimed none the node could print. `ip`, the remote end of the node's connection, is
   * deliberately not read: for a peer that dialled in it is an ephemeral port nobody listens on.
   */
  publicAddress?: HostPort;
}

/**
 * info.peers (api/info/service.go PeersReply): `{numPeers, peers: [{ip, publicIP, nodeID, …}]}`.
 * An entry that is not a peer with a valid NodeID is skipped, not fatal: one odd peer must not
 * hide the others. `peers` itself must be a list (Go writes an empty one as [] or null).
 */
function readPeers(result: unknown): { peers: NodePeer[]; skipped: number } {
  const list = isRecord(result) ? result.peers : undefined;
  if (list !== null && !Array.isArray(list)) throw new Error(`peers is not a list: ${JSON.stringify(list)?.slice(0, 100)}`);
  const peers: NodePeer[] = [];
  let skipped = 0;
  for (const entry of list ?? []) {
    const nodeId = isRecord(entry) && typeof entry.nodeID === 'string' ? entry.nodeID : undefined;
    if (nodeId === undefined || !isNodeId(nodeId)) {
      skipped++;
      continue;
    }
    const raw = (entry as Record<string, unknown>).publicIP;
    // netip.AddrPort writes its zero value as "": the peer claimed no address.
    const address = typeof raw === 'string' && raw !== '' ? parseHostPort(raw) : undefined;
    peers.push(typeof address === 'object' ? { nodeId, publicAddress: address } : { nodeId });
  }
  return { peers, skipped };
}

function isNodeId(text: string): boolean {
  try {
    parseNodeId(text);
    return true;
  } catch {
    return false;
  }
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

  /** info.getNodeVersion: the node's own client version, as it claims it in its Handshakes ("avalanchego/1.15.0"). */
  getNodeVersion(opts: CallOptions = {}): Promise<string> {
    return this.rpc.typed(PATH, 'info.getNodeVersion', {}, readNodeVersion, opts);
  }

  /** info.isBootstrapped: whether the node has caught up with `chain` (an alias such as 'P', or an ID). */
  isBootstrapped(chain: string, opts: CallOptions = {}): Promise<boolean> {
    return this.rpc.typed(PATH, 'info.isBootstrapped', { chain }, readBootstrapped, opts);
  }

  /** info.peers: the node's connected peers (all of them, or those of `nodeIds`). */
  peers(nodeIds: readonly string[] = [], opts: CallOptions = {}): Promise<{ peers: NodePeer[]; skipped: number }> {
    return this.rpc.typed(PATH, 'info.peers', { nodeIDs: nodeIds }, readPeers, opts);
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
