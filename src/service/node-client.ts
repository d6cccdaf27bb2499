// The service's one connection to its avalanchego node (upstreams.node): one JSON-RPC transport
// for all its APIs (one keep-alive pool, one timeout, one metric), the P-Chain client, the info
// client, and the node's network ID, asked once and shared by the network rule and the L1
// message builder. Destination chains' ProposerVM APIs on the node share the transport too.
import { InfoClient, rememberNetworkId } from '../node/info.js';
import { PChainClient } from '../node/pchain.js';
import { JsonRpcTransport, type NodeCallEvent } from '../node/transport.js';
import type { Config } from '../config/config.js';

export interface NodeClient {
  transport: JsonRpcTransport;
  pchain: PChainClient;
  info: InfoClient;
  nodeNetworkId: () => Promise<number>;
}

/** Null when upstreams.node is not configured. */
export function connectNode(config: Config, observe: (event: NodeCallEvent) => void): NodeClient | null {
  if (!config.upstreams.node) return null;
  const transport = new JsonRpcTransport({ nodeBaseUrl: config.upstreams.node, timeoutMs: config.validatorSets.nodeTimeoutMs, observe });
  const info = new InfoClient(transport);
  return { transport, pchain: new PChainClient(transport), info, nodeNetworkId: rememberNetworkId(info) };
}
