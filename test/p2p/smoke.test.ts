import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, hashMessage, once, startNetwork, startNode, targetOf, verifies, EVM_CHAIN } from './helpers.js';

afterEach(closeAll);

describe('smoke', () => {
  it('connects and gets a signature', async () => {
    const node = await startNode();
    const net = await startNetwork();
    const connected = once(net, 'connected');
    net.setTargets([targetOf(node)]);
    await connected;
    const msg = hashMessage(1);
    const answer = await net.request(node.nodeId, { chainId: EVM_CHAIN, message: msg.bytes, justification: new Uint8Array() });
    expect(answer.kind).toBe('signature');
    if (answer.kind === 'signature') expect(verifies(node.blsPublicKey, msg.bytes, answer.signature)).toBe(true);
  });
});
