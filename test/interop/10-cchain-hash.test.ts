// A C-Chain message whose payload is the hash of an accepted block (no transaction needed),
// signed by the real Primary Network validators over p2p through both request dialects, and
// accepted by avalanchego's own verification at the height warpgate says it signed at. warpgate
// runs here without readiness.subnets, as a user who only sets upstreams.node would run it: no
// validator is dialled before the first request, whose set read starts discovery and the dials,
// and that first request waits for them within its deadline instead of failing with 503.
import { describe, expect, inject, it } from 'vitest';
import { bytesToHex, encodeHashPayload, hexToBytes, newUnsignedMessage, parseCb58Id } from '../../src/warp/index.js';
import { postJson, request } from '../ops/helpers.js';
import { avalancheVerdict, PRIMARY_NETWORK_ID, rpc, warpgateForThisFile, withChangedMessageByte } from './helpers.js';

const net = inject('interopNetwork');
const warpgate = warpgateForThisFile(net, { readiness: { subnets: [] } });

async function blockHashMessage(): Promise<Uint8Array> {
  const block = await rpc<{ hash: string }>(net.cChain.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
  return newUnsignedMessage(net.networkId, parseCb58Id(net.cChain.blockchainId), encodeHashPayload(hexToBytes(block.hash))).bytes;
}

describe('C-Chain block hash', () => {
  it('is signed through the Data API dialect and avalanchego accepts it, as the first request after start', async () => {
    const message = await blockHashMessage();
    // Nothing read a set yet, so nobody is connected: this request is what connects them.
    const before = await request(`${warpgate.url}/ready`);
    expect(before.body.peers.connected, JSON.stringify(before.body)).toEqual({ ws: 0, p2p: 0 });
    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: bytesToHex(message) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The proposed height (the default): 0 on a network younger than the proposer window.
    expect(res.headers.get('x-warpgate-pchain-height-source')).toBe('proposed');
    const height = Number(res.headers.get('x-warpgate-pchain-height'));

    const verdict = avalancheVerdict(net, res.body.signedMessage, height);
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: PRIMARY_NETWORK_ID, sourceChainId: net.cChain.blockchainId });
    // Four equal validators: three signatures are the fewest that reach 67%.
    expect(verdict.signers).toBe(3);
    expect(verdict.signedWeight * 100).toBeGreaterThanOrEqual(verdict.totalWeight * 67);

    // The same check refuses the message once one byte of what was signed changes.
    const tampered = avalancheVerdict(net, withChangedMessageByte(res.body.signedMessage, message.length), height);
    expect(tampered).toMatchObject({ valid: false, error: 'signature is invalid' });
  });

  it('is signed through the icm-services dialect at an explicit height and avalanchego accepts it there', async () => {
    const message = await blockHashMessage();
    const height = Number((await rpc<{ height: string }>(net.pChainUrl, 'platform.getHeight')).height);
    const res = await postJson(`${warpgate.url}/aggregate-signatures`, { message: bytesToHex(message), 'pchain-height': height });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Number(res.headers.get('x-warpgate-pchain-height'))).toBe(height);
    const verdict = avalancheVerdict(net, res.body['signed-message'], height);
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: PRIMARY_NETWORK_ID, signers: 3 });
  });
});
