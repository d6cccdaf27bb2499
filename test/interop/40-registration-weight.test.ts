// An L1 validator registered and reweighted for real: the L1's manager (an EOA the harness
// holds) emits RegisterL1Validator and L1ValidatorWeight with SendWarpMessage on the L1,
// warpgate gets them signed by the L1's validators, the P-Chain accepts them in a real
// RegisterL1ValidatorTx and SetL1ValidatorWeightTx, and warpgate then gets the P-Chain's
// answers (L1ValidatorRegistration, L1ValidatorWeight) signed by the L1 from those
// transactions' txHash. avalanchego's verification checks every signed message.
import { AbiFunction, Hex } from 'ox';
import { describe, expect, inject, it } from 'vitest';
import { bytesTo0xHex, bytesToHex, encodeL1Message, hexToBytes, newPChainMessage, parseCb58Id, parseNodeId, unwrapSendWarpMessageLogData, validationIdOfRegistration, type L1Message } from '../../src/warp/index.js';
import { postJson, request } from '../ops/helpers.js';
import { sendTransaction, sendWarpMessage, WARP_PRECOMPILE } from './evm.js';
import { acceptedEverywhere, avalancheVerdict, committedEverywhere, interopJson, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
const warpgate = warpgateForThisFile(net);

/** The manager emits `msg` on the L1; warpgate gets it signed; avalanchego checks it. */
async function emitAndSign(msg: L1Message): Promise<string> {
  const receipt = await sendTransaction(net.l1.rpcUrl, net.l1.evmChainId, net.l1.manager, {
    to: WARP_PRECOMPILE,
    data: AbiFunction.encodeData(sendWarpMessage, [bytesTo0xHex(encodeL1Message(msg)) as Hex.Hex]),
  });
  expect(receipt.status).toBe('0x1');
  await acceptedEverywhere(net, net.l1.blockchainId, BigInt(receipt.blockNumber));
  const log = receipt.logs.find((l) => l.address.toLowerCase() === WARP_PRECOMPILE)!;
  const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: log.data });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.signedMessage.startsWith(bytesToHex(unwrapSendWarpMessageLogData(hexToBytes(log.data))!))).toBe(true);
  const verdict = avalancheVerdict(net, res.body.signedMessage, Number(res.headers.get('x-warpgate-pchain-height')));
  expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: net.l1.subnetId, sourceChainId: net.l1.blockchainId });
  return res.body.signedMessage;
}

/** warpgate's signed answer of the P-Chain to a committed transaction, checked by avalanchego. */
async function signedAnswerOf(txId: string, expected: L1Message): Promise<string> {
  await committedEverywhere(net, txId);
  const res = await request(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures/${txId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.signedMessage.startsWith(bytesToHex(newPChainMessage(net.networkId, expected).bytes))).toBe(true);
  const verdict = avalancheVerdict(net, res.body.signedMessage, Number(res.headers.get('x-warpgate-pchain-height')), { subnet: net.l1.subnetId });
  expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: net.l1.subnetId });
  return res.body.signedMessage;
}

describe('L1 validator registration and weight', () => {
  it('registers a validator and changes its weight with messages warpgate signed', async () => {
    const key = interopJson<{ nodeId: string; publicKey: string; proofOfPossession: string }>(['new-validator-key']);
    const register: L1Message = {
      type: 'RegisterL1Validator',
      subnetId: parseCb58Id(net.l1.subnetId),
      nodeId: parseNodeId(key.nodeId),
      blsPublicKey: hexToBytes(key.publicKey),
      expiry: BigInt(Math.floor(Date.now() / 1000) + 300),
      remainingBalanceOwner: { threshold: 0, addresses: [] },
      disableOwner: { threshold: 0, addresses: [] },
      weight: 1n,
    };
    const validationId = validationIdOfRegistration(encodeL1Message(register));

    const signedRegister = await emitAndSign(register);
    const registerTx = interopJson<{ txId: string }>(['issue', 'register', '-uri', net.nodes[0]!.uri, '-key', net.pChainFundedKey, '-message', signedRegister, '-pop', key.proofOfPossession]);
    await signedAnswerOf(registerTx.txId, { type: 'L1ValidatorRegistration', validationId, registered: true });

    const signedWeight = await emitAndSign({ type: 'L1ValidatorWeight', validationId, nonce: 1n, weight: 2n });
    const weightTx = interopJson<{ txId: string }>(['issue', 'weight', '-uri', net.nodes[0]!.uri, '-key', net.pChainFundedKey, '-message', signedWeight]);
    await signedAnswerOf(weightTx.txId, { type: 'L1ValidatorWeight', validationId, nonce: 1n, weight: 2n });
  });
});
