// The signer's P-Chain policy against the simulated P-Chain node over real sockets: every rule of
// protocol.md section 6 allows what the state makes true and refuses the rest with a reason.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildGenesis, GENESIS_TIME, timeAtHeight } from '../../src/devnet/genesis/index.js';
import { startPChainNode, type SimulatedNode } from '../../src/devnet/pchain/node.js';
import { AllPolicies, PChainPolicy, PolicyError, StaticPolicy, parsePolicy, policyFromConfig, type SigningPolicy } from '../../src/signer/index.js';
import { idToString } from '../../src/warp/cb58.js';
import {
  encodeAddressedCall,
  encodeL1Message,
  encodeL1ValidatorRegistrationJustification,
  newPChainMessage,
  newUnsignedMessage,
  P_CHAIN_ID,
  validationIdFromIndex,
  type L1Message,
  type RegisterL1Validator,
} from '../../src/warp/index.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Closer } from '../peers/helpers.js';
import { refusedUrl } from '../node/rpc-server.js';
import { CachedPolicy } from '../../src/signer/verdict-cache.js';
import { movingPChain } from './moving-pchain.js';

const genesis = buildGenesis({ validators: 4, seed: 'l1-policy-test' });
const { networkId, subnetId } = genesis;
const conversionCount = genesis.conversion.data.validators.length;
let node: SimulatedNode;
let policy: PChainPolicy;
const NONE = new Uint8Array(0);

beforeAll(async () => {
  node = await startPChainNode({ genesis });
  policy = new PChainPolicy({ networkId, nodeUrl: node.url, timeoutMs: 2_000 });
});
afterAll(async () => {
  await node.close();
});
const closer = new Closer();
afterEach(() => closer.closeAll());

const check = (msg: L1Message, justification: Uint8Array = NONE, p: SigningPolicy = policy): Promise<string | null> =>
  p.check(newPChainMessage(networkId, msg), justification);

/** A RegisterL1Validator for a validator the P-Chain never saw, expiring at `expiry`. */
function unknownRegistration(expiry: bigint): Uint8Array {
  const payload: RegisterL1Validator = {
    ...genesis.registration.payload,
    nodeId: new Uint8Array(20).fill(7),
    expiry,
  };
  return encodeL1Message(payload);
}

describe('SubnetToL1Conversion', () => {
  it('is signed for the conversion that happened, with the subnet ID as justification', async () => {
    expect(await check({ type: 'SubnetToL1Conversion', conversionId: genesis.conversion.conversionId }, subnetId)).toBeNull();
  });

  it('is refused for another conversionID, a missing justification, or an unknown subnet', async () => {
    const wrong = sha256(Uint8Array.of(1));
    expect(await check({ type: 'SubnetToL1Conversion', conversionId: wrong }, subnetId)).toMatch(/does not match subnet .*'s conversion/);
    expect(await check({ type: 'SubnetToL1Conversion', conversionId: genesis.conversion.conversionId })).toMatch(/needs the 32-byte subnet ID/);
    expect(await check({ type: 'SubnetToL1Conversion', conversionId: genesis.conversion.conversionId }, sha256(Uint8Array.of(2)))).toMatch(
      /subnet .* is not known to the P-Chain/,
    );
  });
});

describe('L1ValidatorRegistration', () => {
  const featured = genesis.registration.validationId;

  it('registered = true: signed while the validator exists, refused otherwise', async () => {
    expect(await check({ type: 'L1ValidatorRegistration', validationId: featured, registered: true })).toBeNull();
    const never = validationIdFromIndex(subnetId, conversionCount + 5);
    expect(await check({ type: 'L1ValidatorRegistration', validationId: never, registered: true })).toMatch(/is not registered on the P-Chain/);
  });

  it('registered = false with a SubnetIDIndex: signed only for an index that never became (or no longer is) a validator', async () => {
    const free = conversionCount + 3;
    const justification = encodeL1ValidatorRegistrationJustification({ type: 'SubnetIdIndex', subnetId, index: free });
    expect(await check({ type: 'L1ValidatorRegistration', validationId: validationIdFromIndex(subnetId, free), registered: false }, justification)).toBeNull();

    const taken = encodeL1ValidatorRegistrationJustification({ type: 'SubnetIdIndex', subnetId, index: 0 });
    expect(await check({ type: 'L1ValidatorRegistration', validationId: validationIdFromIndex(subnetId, 0), registered: false }, taken)).toMatch(/is still registered/);
    // The justification must determine the validation ID.
    expect(await check({ type: 'L1ValidatorRegistration', validationId: validationIdFromIndex(subnetId, free + 1), registered: false }, justification)).toMatch(
      /does not determine validationID/,
    );
    // The subnet must have been converted.
    const other = sha256(Uint8Array.of(3));
    const elsewhere = encodeL1ValidatorRegistrationJustification({ type: 'SubnetIdIndex', subnetId: other, index: 0 });
    expect(await check({ type: 'L1ValidatorRegistration', validationId: validationIdFromIndex(other, 0), registered: false }, elsewhere)).toMatch(/not known/);
  });

  it('registered = false with a register message: signed once its expiry passed without the validator existing', async () => {
    const expired = unknownRegistration(GENESIS_TIME);
    const expiredJ = encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: expired });
    expect(await check({ type: 'L1ValidatorRegistration', validationId: sha256(expired), registered: false }, expiredJ)).toBeNull();

    const now = timeAtHeight(genesis.currentHeight);
    const pending = unknownRegistration(now + 60n);
    const pendingJ = encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: pending });
    expect(await check({ type: 'L1ValidatorRegistration', validationId: sha256(pending), registered: false }, pendingJ)).toMatch(
      new RegExp(`could still be registered: its registration expires at ${now + 60n}, the P-Chain's time is ${now}`),
    );

    const featuredBytes = encodeL1Message(genesis.registration.payload);
    const featuredJ = encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: featuredBytes });
    expect(await check({ type: 'L1ValidatorRegistration', validationId: featured, registered: false }, featuredJ)).toMatch(/is still registered/);
    expect(await check({ type: 'L1ValidatorRegistration', validationId: featured, registered: false }, expiredJ)).toMatch(/does not hash to validationID/);
  });

  it('registered = false needs a justification', async () => {
    expect(await check({ type: 'L1ValidatorRegistration', validationId: sha256(NONE), registered: false })).toMatch(/needs an L1ValidatorRegistrationJustification/);
  });
});

describe('L1ValidatorWeight', () => {
  const { validationId, nonce, weight } = genesis.weightChange;

  it('is signed for the last applied nonce and the current weight', async () => {
    expect(await check({ type: 'L1ValidatorWeight', validationId, nonce, weight })).toBeNull();
  });

  it('is refused for a stale or future nonce, another weight, weight 0 or an unknown validator', async () => {
    expect(await check({ type: 'L1ValidatorWeight', validationId, nonce: nonce - 1n, weight })).toMatch(/nonce 0 is not the last one applied .*minNonce is 2/);
    const pending = genesis.pendingWeightChange;
    expect(await check({ type: 'L1ValidatorWeight', validationId, nonce: pending.nonce, weight: pending.weight })).toMatch(/nonce 2 is not the last one applied/);
    expect(await check({ type: 'L1ValidatorWeight', validationId, nonce, weight: weight + 1n })).toMatch(/is not L1 validator .*'s current weight/);
    expect(await check({ type: 'L1ValidatorWeight', validationId, nonce, weight: 0n })).toMatch(/weight 0 is not signed/);
    expect(await check({ type: 'L1ValidatorWeight', validationId: sha256(NONE), nonce, weight })).toMatch(/is not registered on the P-Chain/);
  });
});

describe('what is not a signable P-Chain message', () => {
  it('refuses RegisterL1Validator, a foreign network and a non-empty source address', async () => {
    expect(await check(genesis.registration.payload)).toMatch(/does not sign RegisterL1Validator/);
    const foreign = newPChainMessage(networkId + 1, { type: 'L1ValidatorWeight', ...genesis.weightChange });
    expect(await policy.check(foreign, NONE)).toMatch(/network ID 12346 is not this signer's network 12345/);
    const addressed = newUnsignedMessage(networkId, P_CHAIN_ID, encodeAddressedCall(new Uint8Array(20), encodeL1Message({ type: 'L1ValidatorWeight', ...genesis.weightChange })));
    expect(await policy.check(addressed, NONE)).toMatch(/not a P-Chain L1 message: .*sourceAddress/);
  });

  it('hands other chains to otherChains, and refuses them without one', async () => {
    const evm = newUnsignedMessage(networkId, genesis.blockchainId, encodeAddressedCall(genesis.managerAddress, Uint8Array.of(1)));
    expect(await policy.check(evm, NONE)).toMatch(/is not the P-Chain/);
    const combined = new PChainPolicy({ networkId, nodeUrl: node.url, otherChains: new StaticPolicy({ networkId, allowedSourceChains: [genesis.blockchainId] }) });
    expect(await combined.check(evm, NONE)).toBeNull();
    const otherChain = newUnsignedMessage(networkId, sha256(Uint8Array.of(9)), encodeAddressedCall(genesis.managerAddress, Uint8Array.of(1)));
    expect(await combined.check(otherChain, NONE)).toMatch(/is not one this signer signs for/);
    // P-Chain messages still go through the P-Chain rules.
    expect(await check({ type: 'L1ValidatorWeight', validationId: genesis.weightChange.validationId, nonce: 0n, weight: 1n }, NONE, combined)).toMatch(/nonce 0/);
  });

  it('refuses, naming the node, when the P-Chain cannot be asked', async () => {
    const offline = new PChainPolicy({ networkId, nodeUrl: await refusedUrl(), timeoutMs: 1_000 });
    expect(await check({ type: 'L1ValidatorWeight', ...genesis.weightChange }, NONE, offline)).toMatch(/cannot check against the P-Chain: info\.\w+: node unreachable at http:\/\/127\.0\.0\.1:\d+\/ext\/info/);
  });
});

describe('a static policy never vouches for a P-Chain message', () => {
  const P_CHAIN_CB58 = '11111111111111111111111111111111LpoYY';
  const featured = genesis.registration.validationId;
  const featuredJ = encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: encodeL1Message(genesis.registration.payload) });
  // Two lies a forger would like signed: a weight the validator does not have, and that a
  // registered validator is not registered.
  const forged: [string, L1Message, Uint8Array][] = [
    ['L1ValidatorWeight', { type: 'L1ValidatorWeight', ...genesis.weightChange, weight: genesis.weightChange.weight + 1_000_000n }, NONE],
    ['L1ValidatorRegistration(false)', { type: 'L1ValidatorRegistration', validationId: featured, registered: false }, featuredJ],
  ];

  it('cannot be built to allow the P-Chain, however it is made', () => {
    const withPChain = [genesis.blockchainId, P_CHAIN_ID];
    expect(() => new StaticPolicy({ networkId, allowedSourceChains: [P_CHAIN_ID] })).toThrow(PolicyError);
    expect(() => new StaticPolicy({ networkId, allowedSourceChains: withPChain })).toThrow(/the P-Chain .* cannot be an allowed source chain.*"pchainNode"/);
    expect(() => policyFromConfig({ networkId, allowedSourceChains: withPChain })).toThrow(/"pchainNode"/);
    expect(() => policyFromConfig({ networkId, allowedSourceChains: withPChain, confirmWithNode: node.url })).toThrow(/"pchainNode"/);
    const file = JSON.stringify({ networkId, allowedSourceChains: [idToString(genesis.blockchainId), P_CHAIN_CB58] });
    expect(() => parsePolicy(file, 'policy.json')).toThrow(
      new RegExp(`^policy\\.json: "allowedSourceChains"\\[1\\]: the P-Chain \\(${P_CHAIN_CB58}\\) cannot be an allowed source chain: .*set "pchainNode"`),
    );
  });

  it.each(forged)('refuses a forged %s on every static path, naming pchainNode', async (_name, msg, justification) => {
    const statics: SigningPolicy[] = [
      new StaticPolicy({ networkId, allowedSourceChains: [genesis.blockchainId] }),
      policyFromConfig({ networkId, allowedSourceChains: [genesis.blockchainId] }),
      new AllPolicies([new StaticPolicy({ networkId, allowedSourceChains: [genesis.blockchainId] })]),
    ];
    for (const p of statics) {
      expect(await check(msg, justification, p)).toBe(`source chain ${P_CHAIN_CB58} is the P-Chain, which only a policy with pchainNode signs for`);
    }
  });

  it.each(forged)('with pchainNode, a listed P-Chain goes to the node: a forged %s is refused', async (_name, msg, justification) => {
    const p = policyFromConfig(parsePolicy(JSON.stringify({ networkId, allowedSourceChains: [P_CHAIN_CB58], pchainNode: node.url })));
    expect(p).toBeInstanceOf(PChainPolicy);
    expect(await check(msg, justification, p)).toMatch(/is not L1 validator .*'s current weight|is still registered/);
    // What the P-Chain's state makes true is still signed, and only the P-Chain was listed.
    expect(await check({ type: 'L1ValidatorWeight', ...genesis.weightChange }, NONE, p)).toBeNull();
    const evm = newUnsignedMessage(networkId, genesis.blockchainId, encodeAddressedCall(genesis.managerAddress, Uint8Array.of(1)));
    expect(await p.check(evm, NONE)).toMatch(/is not the P-Chain/);
  });
});

describe('a P-Chain that moves while the policy reads it', () => {
  const EXPIRY = GENESIS_TIME + 1_000n;
  function unregistration(expiry: bigint): { msg: L1Message; justification: Uint8Array; validationId: Uint8Array } {
    const register = unknownRegistration(expiry);
    const validationId = sha256(register);
    return {
      msg: { type: 'L1ValidatorRegistration', validationId, registered: false },
      justification: encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: register }),
      validationId,
    };
  }
  const platformCalls = (calls: string[]): string[] => calls.filter((c) => c.startsWith('platform.'));

  it('reads the time before the validator, so a registration landing between the reads is never signed away', async () => {
    const chain = await movingPChain(closer, { networkId, time: EXPIRY - 100n });
    const u = unregistration(EXPIRY);
    let landed = false;
    chain.afterAnswer = () => {
      if (landed) return;
      landed = true;
      // Between the policy's first and second read: the validator is registered (before its
      // expiry), then the chain's time passes the expiry.
      chain.registerBlock(EXPIRY - 50n, u.validationId, EXPIRY);
      chain.emptyBlock(EXPIRY + 50n);
    };
    const p = new PChainPolicy({ networkId, nodeUrl: chain.url });
    expect(await check(u.msg, u.justification, p)).toMatch(/is still registered/);
    expect(platformCalls(chain.calls)).toEqual(['platform.getTimestamp', 'platform.getL1Validator']);
  });

  it('signs once the time it read has passed the expiry: no later block can register the validator', async () => {
    const chain = await movingPChain(closer, { networkId, time: EXPIRY + 10n });
    const u = unregistration(EXPIRY);
    const p = new PChainPolicy({ networkId, nodeUrl: chain.url });
    expect(await check(u.msg, u.justification, p)).toBeNull();
    expect(() => chain.registerBlock(EXPIRY + 20n, u.validationId, EXPIRY)).toThrow(/refuses this registration/);
  });
});

describe("the node's own state: network and bootstrapping", () => {
  const registered = (chain: { registerBlock: (t: bigint, v: Uint8Array, e: bigint) => void; time: bigint }): L1Message => {
    const validationId = sha256(Uint8Array.of(42));
    chain.registerBlock(chain.time + 1n, validationId, chain.time + 1_000n);
    return { type: 'L1ValidatorRegistration', validationId, registered: true };
  };
  const count = (calls: string[], method: string): number => calls.filter((c) => c === method).length;

  it('refuses while the node has not bootstrapped the P-Chain, without reading its state, and asks again next time', async () => {
    const chain = await movingPChain(closer, { networkId, time: GENESIS_TIME });
    const msg = registered(chain);
    chain.bootstrapped = false;
    let clock = 0;
    const p = new PChainPolicy({ networkId, nodeUrl: chain.url, now: () => clock });
    expect(await check(msg, NONE, p)).toMatch(new RegExp(`the node at ${chain.url} has not finished bootstrapping the P-Chain`));
    expect(await check(msg, NONE, p)).toMatch(/has not finished bootstrapping/);
    expect(chain.calls.filter((c) => c.startsWith('platform.'))).toEqual([]);
    expect(count(chain.calls, 'info.isBootstrapped')).toBe(2);

    chain.bootstrapped = true;
    expect(await check(msg, NONE, p)).toBeNull();
    expect(count(chain.calls, 'info.isBootstrapped')).toBe(3);
  });

  it('remembers a bootstrapped node and its network for a few seconds, one call shared by concurrent checks', async () => {
    const chain = await movingPChain(closer, { networkId, time: GENESIS_TIME });
    const msg = registered(chain);
    let clock = 0;
    const p = new PChainPolicy({ networkId, nodeUrl: chain.url, nodeFactsTtlMs: 5_000, now: () => clock });
    const answers = await Promise.all(Array.from({ length: 8 }, () => check(msg, NONE, p)));
    expect(answers).toEqual(Array(8).fill(null));
    await check(msg, NONE, p);
    clock += 4_999;
    await check(msg, NONE, p);
    expect([count(chain.calls, 'info.getNetworkID'), count(chain.calls, 'info.isBootstrapped')]).toEqual([1, 1]);
    expect(count(chain.calls, 'platform.getL1Validator')).toBe(10);

    clock += 1;
    chain.bootstrapped = false;
    expect(await check(msg, NONE, p)).toMatch(/has not finished bootstrapping/);
    expect([count(chain.calls, 'info.getNetworkID'), count(chain.calls, 'info.isBootstrapped')]).toEqual([2, 2]);
  });

  it('refuses when the node is on another network than the message, without reading its state', async () => {
    const chain = await movingPChain(closer, { networkId: networkId + 1, time: GENESIS_TIME });
    const msg = registered(chain);
    const p = new PChainPolicy({ networkId, nodeUrl: chain.url });
    expect(await check(msg, NONE, p)).toMatch(new RegExp(`the node at ${chain.url} is on network ${networkId + 1}, not ${networkId}`));
    expect(chain.calls.filter((c) => c.startsWith('platform.'))).toEqual([]);
  });
});

describe('which P-Chain verdicts a signer may keep (CachedPolicy)', () => {
  const count = (calls: string[], method: string): number => calls.filter((c) => c === method).length;
  const cached = (url: string): CachedPolicy => new CachedPolicy(new PChainPolicy({ networkId, nodeUrl: url }), { maxEntries: 100, ttlMs: 60_000 });

  it('keeps an unregistration once true (an expired, unknown registration stays so) and nothing a block can change', async () => {
    const chain = await movingPChain(closer, { networkId, time: GENESIS_TIME + 5_000n });
    const register = unknownRegistration(GENESIS_TIME + 1_000n);
    const unregistration: L1Message = { type: 'L1ValidatorRegistration', validationId: sha256(register), registered: false };
    const justification = encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: register });
    const validationId = sha256(Uint8Array.of(7));
    chain.registerBlock(chain.time + 1n, validationId, chain.time + 1_000n);
    const registered: L1Message = { type: 'L1ValidatorRegistration', validationId, registered: true };
    const notYet: L1Message = { type: 'L1ValidatorRegistration', validationId: sha256(Uint8Array.of(8)), registered: true };

    const p = cached(chain.url);
    for (let i = 0; i < 3; i++) {
      expect(await check(unregistration, justification, p)).toBeNull();
      expect(await check(registered, NONE, p)).toBeNull();
      expect(await check(notYet, NONE, p)).toMatch(/is not registered on the P-Chain/);
    }
    // The unregistration was read once (time and validator); the other two each time.
    expect(count(chain.calls, 'platform.getTimestamp')).toBe(1);
    expect(count(chain.calls, 'platform.getL1Validator')).toBe(1 + 3 + 3);
  });

  it('keeps no refusal that came from the node being unusable', async () => {
    const chain = await movingPChain(closer, { networkId, time: GENESIS_TIME + 5_000n });
    const register = unknownRegistration(GENESIS_TIME + 1_000n);
    const unregistration: L1Message = { type: 'L1ValidatorRegistration', validationId: sha256(register), registered: false };
    const justification = encodeL1ValidatorRegistrationJustification({ type: 'RegisterL1ValidatorMessage', message: register });
    chain.bootstrapped = false;
    const p = cached(chain.url);
    expect(await check(unregistration, justification, p)).toMatch(/has not finished bootstrapping/);
    chain.bootstrapped = true;
    expect(await check(unregistration, justification, p)).toBeNull();
  });
});
