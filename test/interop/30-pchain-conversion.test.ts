// The L1's SubnetToL1Conversion, made signable by the real ConvertSubnetToL1Tx the harness
// issued: through the Data API's txHash GET and through the justification form (the raw subnet
// ID). The L1's own validators (weights 40/10/10) sign it (the L1 is the default signing subnet of a P-Chain
// message bound for it) and avalanchego's verification accepts it against the L1's set.
import { describe, expect, inject, it } from 'vitest';
import { bytesToHex, parseCb58Id } from '../../src/warp/index.js';
import { postJson, request } from '../ops/helpers.js';
import { avalancheVerdict, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
const P_CHAIN_ID = '11111111111111111111111111111111LpoYY';
const warpgate = warpgateForThisFile(net);

/** The unsigned part of a signed message: everything before the signature's type ID. */
function unsignedPart(signedHex: string): string {
  // The BitSetSignature ends the message: type ID (4), signers (4 + n), signature (96).
  const bytes = signedHex.length / 2;
  for (let signersLength = 0; signersLength <= 16; signersLength++) {
    const unsignedBytes = bytes - 4 - 4 - signersLength - 96;
    if (signedHex.slice(unsignedBytes * 2, unsignedBytes * 2 + 16) === `00000000${signersLength.toString(16).padStart(8, '0')}`) return signedHex.slice(0, unsignedBytes * 2);
  }
  throw new Error('no BitSetSignature at the end');
}

describe('P-Chain SubnetToL1Conversion', () => {
  let fromTx: string;

  it('is signed by the L1 for the txHash of the real conversion, and avalanchego accepts it', async () => {
    const res = await request(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures/${net.l1.conversionTxId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    fromTx = res.body.signedMessage;
    const verdict = avalancheVerdict(net, fromTx, Number(res.headers.get('x-warpgate-pchain-height')), { subnet: net.l1.subnetId });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, sourceChainId: P_CHAIN_ID, subnetId: net.l1.subnetId, totalWeight: 60 });
    // 40/10/10: the heavy validator alone has 66.7%, short of 67%; one light one more is enough.
    expect(verdict).toMatchObject({ signers: 2, signedWeight: 50 });
  });

  it('is the same message through the justification form (the subnet ID), and avalanchego accepts it', async () => {
    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, {
      justification: bytesToHex(parseCb58Id(net.l1.subnetId)),
      signingSubnetId: net.l1.subnetId,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(unsignedPart(res.body.signedMessage)).toBe(unsignedPart(fromTx));
    const verdict = avalancheVerdict(net, res.body.signedMessage, Number(res.headers.get('x-warpgate-pchain-height')), { subnet: net.l1.subnetId });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: net.l1.subnetId });
  });
});
