// The service's own peer admission, end to end (issue 12): a simulated P-Chain node, the service
// with the devnet's subnet in readiness.subnets, and signers dialing in on /v1/peers. The subnet's
// validators are admitted from the start (its set is read at start, not first by an
// aggregation); a key of no known set is refused before its proof is checked, and counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildGenesis } from '../../src/devnet/genesis/index.js';
import { startPChainNode, type SimulatedNode } from '../../src/devnet/pchain/node.js';
import { loadConfig } from '../../src/config/config.js';
import { CloseCode } from '../../src/peers/frames.js';
import { startService, type Service } from '../../src/service/start.js';
import { idToString } from '../../src/warp/cb58.js';
import { Closer, RawSigner, bls, honestHello, newKey, signer, waitFor } from '../peers/helpers.js';
import { scrape } from '../ops/helpers.js';

const genesis = buildGenesis({ validators: 4, seed: 'peer-admission-test' });
let node: SimulatedNode;
let service: Service;
const closer = new Closer();

beforeAll(async () => {
  node = await startPChainNode({ genesis });
  const config = loadConfig({
    env: {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      'upstreams.node': node.url,
      localNetworkId: genesis.networkId,
      'readiness.subnets': [idToString(genesis.subnetId)],
    },
  });
  service = await startService(config, { logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await closer.closeAll();
  await service?.close();
  await node?.close();
});

const peersUrl = (): string => `${service.url.replace(/^http/, 'ws')}/v1/peers`;

describe('peer admission in the service', () => {
  it("admits the signers of readiness.subnets' validators that dial in, with no aggregation yet", async () => {
    const validators = genesis.validators.slice(0, 2);
    const peers = validators.map((v) => signer(closer, { sk: bls.secretKeyFromBytes(v.secretKey), connect: [peersUrl()] }));
    await Promise.all(peers.map((p) => p.start()));
    await waitFor(() => peers.every((p) => service.peers.isConnected(p.publicKeyHex)), 'both validators connected', 20_000);
  });

  it('refuses a key of no known validator set with 4009, and counts it', async () => {
    const raw = closer.add(await RawSigner.dial(peersUrl(), honestHello(newKey().sk)), (r) => r.close());
    const { code, reason } = await raw.waitClosed(10_000);
    expect(code).toBe(CloseCode.notAdmitted);
    expect(reason).toMatch(/not a validator of any subnet this service tracks/);
    expect(raw.frames.map((f) => f.type)).toEqual(['challenge']);
    const m = await scrape(service.url);
    expect(m.value('warpgate_peer_connections_refused_total', { reason: 'not-admitted' })).toBeGreaterThanOrEqual(1);
  });
});
