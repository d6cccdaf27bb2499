// Where the devnet's simulated avalanchego node answered otherwise than a real one, found by the
// conformance suite (test/interop/80-simulation-conformance.test.ts, against avalanchego
// v1.14.2). Each case here states the real node's outcome, which avalanchego's source explains,
// and holds the simulation to it without a real network.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASES, type CaseOutcome } from '../../conformance/cases.js';
import { startSimulatedSubject } from '../../conformance/simulated-subject.js';

let simulated: Awaited<ReturnType<typeof startSimulatedSubject>>;
beforeAll(async () => {
  simulated = await startSimulatedSubject();
});
afterAll(async () => {
  await simulated.node.close();
});

function run(name: string): Promise<CaseOutcome> {
  const c = CASES.find((x) => x.name === name);
  if (!c) throw new Error(`no conformance case "${name}"`);
  return c.run(simulated.subject);
}

describe('the simulated node answers as avalanchego v1.14.2 does', () => {
  it('EVM chain: an accepted block\'s hash on another network is refused by the signer (-1), not by the verifier (2)', async () => {
    // subnet-evm's warp backend checks only that the hash names an accepted block (Verify is not
    // expected to check NetworkID or SourceChainID, network/p2p/acp118/handler.go); the warp
    // signer then refuses the network: ErrUnexpected.
    expect(await run('wrong network ID (an accepted block\'s hash)')).toBe('app-error -1');
    expect(await run('another chain\'s message (an accepted block\'s hash, the P-Chain as source)')).toBe('app-error -1');
  });

  it('a Pong that answers no Ping closes the connection (network/peer/peer.go handlePong)', async () => {
    expect(await run('a Pong that answers no Ping, then a signable request')).toBe('closed');
  });

  it('a burst of messages is read, not punished: avalanchego throttles a peer, it does not close it for sending many', async () => {
    expect(await run('3,000 messages of an unknown kind in one burst, then a signable request')).toBe('signature');
  });

  it('an AppResponse or AppError to no request is dropped, not punished (snow/networking/router/chain_router.go drops unrequested responses)', async () => {
    expect(await run('an AppResponse to no request, then a signable request')).toBe('signature');
    expect(await run('an AppError to no request, then a signable request')).toBe('signature');
  });

  it('a message with a payload over 24 KiB is refused by the verifier (1), not as an unparseable message (-1)', async () => {
    // acp118's handler parses the unsigned message with vms/platformvm/warp's codec, which has no
    // size cap; only the payload codec (24 KiB) refuses it, inside each chain's verifier.
    expect(await run('a message whose payload is 30 KiB (over the 24 KiB a payload may be)')).toBe('app-error 1');
    const evm = CASES.filter((c) => c.group === 'EVM chain' && c.name.startsWith('a message whose payload is 30 KiB'));
    expect(await evm[0]!.run(simulated.subject)).toBe('app-error 1');
  });
});
