// The real interop network as a conformance subject: the P-Chain cases go to a Primary Network
// validator, the EVM cases to an L1 validator (subnet-evm, the VM the devnet's EVM chain
// models), with the network's own IDs and state read from its nodes.
import { PChainClient } from '../../src/node/pchain.js';
import { conversionIdOfSubnet } from '../../src/l1/justification.js';
import { hexToBytes, parseCb58Id, validationIdFromIndex } from '../../src/warp/index.js';
import { rpc } from '../interop/helpers.js';
import type { NetworkDescription } from '../interop/paths.js';
import type { ConformanceSubject, SubjectNode } from './cases.js';

async function subjectNode(net: NetworkDescription, n: { nodeId: string; uri: string; stakingAddress: string }): Promise<SubjectNode> {
  const info = await rpc<{ nodePOP: { publicKey: string } }>(`${n.uri}/ext/info`, 'info.getNodeID', {});
  const [host, port] = n.stakingAddress.split(':');
  return { nodeId: n.nodeId, host: host!, port: Number(port), networkId: net.networkId, blsPublicKey: hexToBytes(info.nodePOP.publicKey.replace(/^0x/, '')) };
}

export async function realSubject(net: NetworkDescription): Promise<ConformanceSubject> {
  const l1Node = net.l1.validators[0]!;
  const subnetId = parseCb58Id(net.l1.subnetId);
  const pchain = new PChainClient({ nodeBaseUrl: net.nodes[0]!.uri });
  const block = await rpc<{ hash: string }>(`${l1Node.uri}/ext/bc/${net.l1.blockchainId}/rpc`, 'eth_getBlockByNumber', ['latest', false]);
  const validator = await pchain.getL1Validator(validationIdFromIndex(subnetId, 0));
  return {
    networkId: net.networkId,
    pchainNode: await subjectNode(net, net.nodes[0]!),
    evmNode: await subjectNode(net, l1Node),
    evmChainId: parseCb58Id(net.l1.blockchainId),
    acceptedBlockHash: hexToBytes(block.hash.replace(/^0x/, '')),
    subnetId,
    conversionId: await conversionIdOfSubnet(pchain, subnetId),
    minNonce: validator.minNonce,
  };
}
