// A simulated avalanchego node that validates an L1 claims it in its Handshake's tracked_subnets,
// as a node run with --track-subnets does. avalanchego's network.Send (network/network.go
// getPeers) skips a peer that does not claim the subnet a message is sent for, so without it a
// real client (icm-services) never sends the node a signature request for the L1's messages.
import { afterEach, describe, expect, it } from 'vitest';
import type { P2PConnection } from '../../../src/p2p/index.js';
import type { P2PNetwork } from '../../../src/p2p/network.js';
import { closeAll, startNetwork, startNode, targetOf, waitFor } from '../../p2p/helpers.js';
import { bytesToHex } from '../../../src/warp/hex.js';

afterEach(closeAll);

const L1_SUBNET = Uint8Array.from({ length: 32 }, (_, i) => 0xa0 + i);
const PRIMARY_NETWORK = new Uint8Array(32);

function connectionTo(net: P2PNetwork, nodeId: string): P2PConnection {
  return (net as unknown as { targets: Map<string, { conn: P2PConnection }> }).targets.get(nodeId)!.conn;
}

async function claimedBy(opts: Parameters<typeof startNode>[0]): Promise<string[]> {
  const node = await startNode(opts);
  const net = await startNetwork();
  net.addTargets([targetOf(node)]);
  await waitFor(() => net.isConnected(node.nodeId), 'the node to be connected');
  return connectionTo(net, node.nodeId).peer!.trackedSubnets.map(bytesToHex);
}

describe('the simulated node\'s tracked subnets', () => {
  it('claims the subnets it is given, besides the primary network', async () => {
    expect(await claimedBy({ trackedSubnets: [L1_SUBNET] })).toEqual(expect.arrayContaining([bytesToHex(PRIMARY_NETWORK), bytesToHex(L1_SUBNET)]));
  });

  it('claims only the primary network when it tracks no subnet', async () => {
    expect(await claimedBy({})).toEqual([bytesToHex(PRIMARY_NETWORK)]);
  });
});
