import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KeyFileBackend, SignerKeyError, readSignerKey } from '../../src/signer/key-file.js';
import { NodeBackend } from '../../src/signer/node-backend.js';
import { AllPolicies, NodeConfirmedPolicy, PolicyError, StaticPolicy } from '../../src/signer/policy.js';
import { parsePolicy, policyFromConfig, readPolicyFile } from '../../src/signer/policy-file.js';
import { PChainPolicy } from '../../src/signer/pchain-policy.js';
import type { SigningPolicy } from '../../src/signer/types.js';
import { idToString } from '../../src/warp/cb58.js';
import { bytesTo0xHex } from '../../src/warp/hex.js';
import { CHAIN_A, CHAIN_B, Closer, NETWORK_ID, bls, message, newKey, verifies } from '../peers/helpers.js';
import { fakeNode } from './fake-node.js';

const closer = new Closer();
afterEach(() => closer.closeAll());

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warpgate-signer-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const none = new Uint8Array();
const policy = () => new StaticPolicy({ networkId: NETWORK_ID, allowedSourceChains: [CHAIN_A] });

describe('StaticPolicy', () => {
  it('allows its network and source chains', async () => {
    expect(await policy().check(message('ok'))).toBeNull();
  });
  it('refuses another network ID, saying which', async () => {
    expect(await policy().check(message('x', { networkId: 1 }))).toBe(`network ID 1 is not this signer's network ${NETWORK_ID}`);
  });
  it('refuses another source chain, naming it in cb58', async () => {
    const reason = await policy().check(message('x', { chain: CHAIN_B }));
    expect(reason).toContain(idToString(CHAIN_B));
  });
  it('cannot be built to refuse everything', () => {
    expect(() => new StaticPolicy({ networkId: 1, allowedSourceChains: [] })).toThrow(PolicyError);
    expect(() => new StaticPolicy({ networkId: -1, allowedSourceChains: [CHAIN_A] })).toThrow(/networkId/);
  });
});

describe('policy file', () => {
  const good = { networkId: NETWORK_ID, allowedSourceChains: [idToString(CHAIN_A)] };

  it('parses the documented shape', () => {
    const cfg = parsePolicy(JSON.stringify({ ...good, confirmWithNode: 'http://127.0.0.1:9650/' }));
    expect(cfg.networkId).toBe(NETWORK_ID);
    expect(cfg.allowedSourceChains).toEqual([CHAIN_A]);
    expect(cfg.confirmWithNode).toBe('http://127.0.0.1:9650');
    expect(policyFromConfig(cfg)).toBeInstanceOf(AllPolicies);
    expect(policyFromConfig(parsePolicy(JSON.stringify(good)))).toBeInstanceOf(StaticPolicy);
  });

  it('with pchainNode checks P-Chain messages against that node and leaves other chains to the static rules', async () => {
    const cfg = parsePolicy(JSON.stringify({ ...good, pchainNode: 'http://127.0.0.1:9650/' }));
    expect(cfg.pchainNode).toBe('http://127.0.0.1:9650');
    const p = policyFromConfig(cfg);
    expect(p).toBeInstanceOf(PChainPolicy);
    expect(await p.check(message('ok'), none)).toBeNull();
    expect(await p.check(message('x', { chain: CHAIN_B }), none)).toContain(idToString(CHAIN_B));
  });

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['an unknown key', JSON.stringify({ ...good, networkID: 1 }), /unknown key "networkID"/],
    ['a missing networkId', JSON.stringify({ allowedSourceChains: good.allowedSourceChains }), /"networkId" is required/],
    ['a string networkId', JSON.stringify({ ...good, networkId: '12345' }), /"networkId" must be an integer/],
    ['an empty chain list', JSON.stringify({ ...good, allowedSourceChains: [] }), /"allowedSourceChains" must be a non-empty array/],
    ['a chain with a bad checksum', JSON.stringify({ ...good, allowedSourceChains: ['11111111111111111111111111111111LpoYX'] }), /"allowedSourceChains"\[0\]/],
    ['a hex chain', JSON.stringify({ ...good, allowedSourceChains: ['0x' + '00'.repeat(32)] }), /"allowedSourceChains"\[0\]/],
    ['a confirmWithNode that is not http', JSON.stringify({ ...good, confirmWithNode: 'ws://x' }), /"confirmWithNode"/],
    ['a pchainNode that is not a URL', JSON.stringify({ ...good, pchainNode: 42 }), /"pchainNode"/],
  ])('rejects %s with an error naming the key', (_name, text, pattern) => {
    expect(() => parsePolicy(text, 'policy.json')).toThrow(pattern);
    expect(() => parsePolicy(text, 'policy.json')).toThrow(/^policy\.json: /);
  });

  it('names a policy file that cannot be read', async () => {
    await expect(readPolicyFile(join(dir, 'missing.json'))).rejects.toThrow(/missing\.json: ENOENT/);
  });
});

describe('NodeConfirmedPolicy', () => {
  it("signs only what the node's warp_getMessage returns byte for byte", async () => {
    const m = message('confirmed');
    const other = message('something else');
    const node = await fakeNode(closer, (call) =>
      call.params[0] === idToString(m.id)
        ? { result: bytesTo0xHex(m.bytes) }
        : call.params[0] === idToString(other.id)
          ? { result: bytesTo0xHex(m.bytes) } // the node knows that ID with different bytes
          : { error: { code: -32000, message: 'message not found' } },
    );
    const confirmed = new NodeConfirmedPolicy(node.url);
    expect(await confirmed.check(m)).toBeNull();
    expect(node.calls[0]).toEqual({ path: `/ext/bc/${idToString(CHAIN_A)}/rpc`, method: 'warp_getMessage', params: [idToString(m.id)] });
    expect(await confirmed.check(other)).toMatch(/different bytes/);
    expect(await confirmed.check(message('unknown'))).toMatch(/does not confirm .*message not found/);
  });

  it('refuses when the node cannot be reached', async () => {
    const reason = await new NodeConfirmedPolicy('http://127.0.0.1:1').check(message('x'));
    expect(reason).toMatch(/could not confirm message .* with the node/);
  });

  it('composes: the static rules are asked first, and the node only for allowed chains', async () => {
    const node = await fakeNode(closer, () => ({ error: { code: -32000, message: 'nope' } }));
    const both: SigningPolicy = policyFromConfig({ networkId: NETWORK_ID, allowedSourceChains: [CHAIN_A], confirmWithNode: node.url });
    expect(await both.check(message('x', { chain: CHAIN_B }), none)).toContain('is not one this signer signs for');
    expect(node.calls).toHaveLength(0);
    expect(await both.check(message('x'), none)).toMatch(/nope/);
    expect(node.calls).toHaveLength(1);
  });
});

describe('KeyFileBackend', () => {
  it('signs what the policy allows with a signature that verifies', async () => {
    const k = newKey();
    const backend = new KeyFileBackend(k.sk.bytes, bls, policy());
    const m = message('sign me');
    const out = await backend.sign(m, none);
    expect(out.kind).toBe('signature');
    if (out.kind === 'signature') expect(verifies(k.pk, m.bytes, out.signature)).toBe(true);
  });

  it('refuses what the policy refuses, with its reason', async () => {
    const backend = new KeyFileBackend(newKey().sk, bls, policy());
    expect(await backend.sign(message('x', { networkId: 5 }), none)).toEqual({
      kind: 'refused',
      reason: `network ID 5 is not this signer's network ${NETWORK_ID}`,
    });
  });
});

describe('readSignerKey', () => {
  it("reads avalanchego's raw 32-byte signer.key", async () => {
    const k = newKey();
    const path = join(dir, 'signer.key');
    await writeFile(path, k.sk.bytes);
    expect(await readSignerKey(path)).toEqual(k.sk.bytes);
  });

  it('rejects other sizes, naming the file', async () => {
    const path = join(dir, 'hex.key');
    await writeFile(path, `${'ab'.repeat(32)}\n`);
    const err = await readSignerKey(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignerKeyError);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(/exactly 32 raw bytes .* found 65; it looks like text/);
  });

  it('names a missing file', async () => {
    await expect(readSignerKey(join(dir, 'nope.key'))).rejects.toThrow(/nope\.key: does not exist/);
  });
});

describe('NodeBackend', () => {
  it("returns the node's warp_getMessageSignature", async () => {
    const k = newKey();
    const m = message('node signs');
    const sig = bls.sign(k.sk, m.bytes).bytes;
    const node = await fakeNode(closer, () => ({ result: bytesTo0xHex(sig) }));
    expect(await new NodeBackend(node.url).sign(m, none)).toEqual({ kind: 'signature', signature: sig });
    expect(node.calls).toEqual([{ path: `/ext/bc/${idToString(CHAIN_A)}/rpc`, method: 'warp_getMessageSignature', params: [idToString(m.id)] }]);
  });

  it.each([
    ['a node error, with the node reason', { error: { code: -32000, message: 'failed to get signature: not found' } }, /the node refused: .*not found/],
    ['an empty signature', { result: '0x' }, /no signature for message/],
    ['an all-zero signature', { result: bytesTo0xHex(new Uint8Array(96)) }, /no signature for message/],
    ['a signature of the wrong size', { result: bytesTo0xHex(new Uint8Array(95).fill(1)) }, /95-byte signature/],
    ['a null result', { result: null }, /no signature for message/],
  ])('refuses on %s', async (_name, answer, pattern) => {
    const node = await fakeNode(closer, () => answer);
    const out = await new NodeBackend(node.url).sign(message('x'), none);
    expect(out.kind).toBe('refused');
    if (out.kind === 'refused') expect(out.reason).toMatch(pattern);
  });

  it('refuses when the node is down', async () => {
    const out = await new NodeBackend('http://127.0.0.1:1').sign(message('x'), none);
    expect(out).toMatchObject({ kind: 'refused' });
  });

  it('applies an optional local policy before asking the node', async () => {
    const node = await fakeNode(closer, () => ({ result: '0x' }));
    const out = await new NodeBackend(node.url, { policy: policy() }).sign(message('x', { networkId: 1 }), none);
    expect(out).toMatchObject({ kind: 'refused', reason: expect.stringContaining('network ID 1') });
    expect(node.calls).toHaveLength(0);
  });
});
