// A real SendWarpMessage on the C-Chain: an EIP-1559 transaction from a funded key to the Warp
// precompile. Its log data is sent as the Data API's example request sends it (the message
// field carries the ABI-encoded log data, not the bare message); the real validators sign what
// their chain emitted, and avalanchego's verification accepts the result.
import { AbiEvent, AbiFunction, Hex } from 'ox';
import { describe, expect, inject, it } from 'vitest';
import { bytesToHex, hexToBytes, unwrapSendWarpMessageLogData } from '../../src/warp/index.js';
import { postJson } from '../ops/helpers.js';
import { sendTransaction, sendWarpMessage, WARP_PRECOMPILE } from './evm.js';
import { avalancheVerdict, PRIMARY_NETWORK_ID, warpgateForThisFile } from './helpers.js';

const net = inject('interopNetwork');
const warpgate = warpgateForThisFile(net);

const sendWarpMessageEvent = AbiEvent.from('event SendWarpMessage(address indexed sender, bytes32 indexed messageID, bytes message)');

describe('C-Chain SendWarpMessage', () => {
  it('signs the message a real transaction emitted, given its log data, and avalanchego accepts it', async () => {
    const sender = net.funded[0]!;
    const payload = Hex.fromString('warpgate interop: hello from the C-Chain');
    const receipt = await sendTransaction(net.cChain.rpcUrl, net.cChain.evmChainId, sender, {
      to: WARP_PRECOMPILE,
      data: AbiFunction.encodeData(sendWarpMessage, [payload]),
    });
    expect(receipt.status).toBe('0x1');
    const log = receipt.logs.find((l) => l.address.toLowerCase() === WARP_PRECOMPILE && l.topics[0] === AbiEvent.getSelector(sendWarpMessageEvent));
    expect(log, 'the precompile emitted SendWarpMessage').toBeDefined();
    expect(BigInt(log!.topics[1]!)).toBe(BigInt(sender.address));
    const unsigned = unwrapSendWarpMessageLogData(hexToBytes(log!.data))!;

    const res = await postJson(`${warpgate.url}/v1/signatureAggregator/fuji/aggregateSignatures`, { message: log!.data });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const signed: string = res.body.signedMessage;
    expect(signed.startsWith(bytesToHex(unsigned))).toBe(true);
    const verdict = avalancheVerdict(net, signed, Number(res.headers.get('x-warpgate-pchain-height')));
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true, subnetId: PRIMARY_NETWORK_ID, sourceChainId: net.cChain.blockchainId });
  });
});
