// Teleporter decoding: a real Fuji Teleporter message, a vector laid out by hand from the Solidity
// ABI spec (independent of the library the decoder uses), and everything that is not Teleporter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bytesTo0xHex,
  bytesToHex,
  decodeTeleporterMessage,
  encodeAddressedCall,
  encodeHashPayload,
  encodeL1Message,
  encodeTeleporterMessage,
  hexToBytes,
  idToString,
  parseCb58Id,
  parsePayload,
  parseUnsignedMessage,
  teleporterMessageOfPayload,
  TELEPORTER_MESSENGER_V1_ADDRESS,
  unwrapSendWarpMessageLogData,
  WarpFormatError,
  type TeleporterMessage,
} from '../../src/warp/index.js';
import { FUJI_TELEPORTER_LOG_DATA } from './teleporter-vectors.js';

// --- A hand-rolled encoder, written from the Solidity ABI spec, for vectors that do not come from
// the decoder's own library. abi.encode of one dynamic tuple: the offset word 0x20, then the
// tuple's 8 head words (the 3 dynamic fields as offsets from the tuple's start), then the tails.
const word = (n: bigint | number) => BigInt(n).toString(16).padStart(64, '0');
const addressWord = (hex20: string) => hex20.replace(/^0x/, '').toLowerCase().padStart(64, '0');

interface PlainMessage {
  nonce: bigint;
  origin: string;
  destinationChain: string;
  destination: string;
  gasLimit: bigint;
  relayers: string[];
  receipts: [bigint, string][];
  message: string;
}

function handEncode(m: PlainMessage): string {
  const body = m.message.replace(/^0x/, '');
  const allowedTail = word(m.relayers.length) + m.relayers.map(addressWord).join('');
  const receiptsTail = word(m.receipts.length) + m.receipts.map(([n, a]) => word(n) + addressWord(a)).join('');
  const padding = '00'.repeat((32 - ((body.length / 2) % 32)) % 32);
  const messageTail = word(body.length / 2) + body + padding;
  const allowedAt = 8 * 32;
  const receiptsAt = allowedAt + allowedTail.length / 2;
  const messageAt = receiptsAt + receiptsTail.length / 2;
  return (
    word(32) +
    word(m.nonce) +
    addressWord(m.origin) +
    m.destinationChain.replace(/^0x/, '') +
    addressWord(m.destination) +
    word(m.gasLimit) +
    word(allowedAt) +
    word(receiptsAt) +
    word(messageAt) +
    allowedTail +
    receiptsTail +
    messageTail
  );
}

// The message icm-services' relayer tests use (messages/teleporter/message_handler_test.go,
// validTeleporterMessage): one allowed relayer, one receipt, a 4-byte message (so padded).
const A = '0x0123456789abcdef0123456789abcdef01234567';
const ICM_TEST_DESTINATION = 'S4mMqUXe7vHsGiRAma6bv3CKnyaLssyAxmQ2KvFpX1KEvfFCD';
function icmTestMessage(destinationHex: string): PlainMessage {
  return {
    nonce: 1n,
    origin: A,
    destinationChain: destinationHex,
    destination: A,
    gasLimit: 2n,
    relayers: [A],
    receipts: [[1n, A]],
    message: '01020304',
  };
}

function fujiPayload(): { sourceAddress: Uint8Array; payload: Uint8Array } {
  const unsigned = parseUnsignedMessage(unwrapSendWarpMessageLogData(hexToBytes(FUJI_TELEPORTER_LOG_DATA))!);
  const payload = parsePayload(unsigned.payload);
  if (payload.type !== 'AddressedCall') throw new Error('the Fuji vector is an AddressedCall');
  return payload;
}

describe('decodeTeleporterMessage: a real Fuji Teleporter message', () => {
  it('decodes every field', () => {
    const { sourceAddress, payload } = fujiPayload();
    expect(bytesTo0xHex(sourceAddress)).toBe(bytesTo0xHex(TELEPORTER_MESSENGER_V1_ADDRESS));
    const m = decodeTeleporterMessage(payload)!;
    expect(m).not.toBeNull();
    expect(m.messageNonce).toBe(277n);
    expect(bytesTo0xHex(m.originSenderAddress)).toBe('0x8578ae7723751446b196bd5124e1bf57b40eb7bc');
    // The Fuji C-Chain.
    expect(idToString(m.destinationBlockchainID)).toBe('yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp');
    expect(bytesTo0xHex(m.destinationAddress)).toBe('0x9660ed66aef60dfba5467afe865f612edbfb5c71');
    expect(m.requiredGasLimit).toBe(85_000n);
    expect(m.allowedRelayerAddresses).toEqual([]);
    expect(m.receipts.map((r) => r.receivedMessageNonce)).toEqual([4512n, 4514n, 4533n, 4584n, 4585n]);
    for (const r of m.receipts) expect(bytesTo0xHex(r.relayerRewardAddress)).toBe('0x7ec2afb0a06a73666adc24983ebdbf2b6f1d7082');
    expect(m.message.length).toBe(192);
    expect(bytesToHex(m.message).endsWith('038d7ea4c68000')).toBe(true);
  });

  it('re-encodes to the same bytes, and the hand layout agrees', () => {
    const { payload } = fujiPayload();
    const m = decodeTeleporterMessage(payload)!;
    expect(bytesToHex(encodeTeleporterMessage(m))).toBe(bytesToHex(payload));
    const hand = handEncode({
      nonce: m.messageNonce,
      origin: bytesTo0xHex(m.originSenderAddress),
      destinationChain: bytesToHex(m.destinationBlockchainID),
      destination: bytesTo0xHex(m.destinationAddress),
      gasLimit: m.requiredGasLimit,
      relayers: [],
      receipts: m.receipts.map((r) => [r.receivedMessageNonce, bytesTo0xHex(r.relayerRewardAddress)]),
      message: bytesToHex(m.message),
    });
    expect(hand).toBe(bytesToHex(payload));
  });

  it('teleporterMessageOfPayload finds it in the parsed Warp payload; a Hash payload has none', () => {
    const { sourceAddress, payload } = fujiPayload();
    expect(teleporterMessageOfPayload({ type: 'AddressedCall', sourceAddress, payload })?.messageNonce).toBe(277n);
    expect(teleporterMessageOfPayload(parsePayload(encodeHashPayload(new Uint8Array(32).fill(0x20))))).toBeNull();
  });
});

describe('decodeTeleporterMessage: the hand-laid-out vector', () => {
  const destinationHex = bytesToHex(parseCb58Id(ICM_TEST_DESTINATION));
  const bytes = hexToBytes(handEncode(icmTestMessage(destinationHex)));

  it('decodes relayers, receipts and a message that needs padding', () => {
    const m = decodeTeleporterMessage(bytes)!;
    expect(m).not.toBeNull();
    expect(m.messageNonce).toBe(1n);
    expect(bytesTo0xHex(m.originSenderAddress)).toBe(A);
    expect(idToString(m.destinationBlockchainID)).toBe(ICM_TEST_DESTINATION);
    expect(bytesTo0xHex(m.destinationAddress)).toBe(A);
    expect(m.requiredGasLimit).toBe(2n);
    expect(m.allowedRelayerAddresses.map(bytesTo0xHex)).toEqual([A]);
    expect(m.receipts.map((r) => [r.receivedMessageNonce, bytesTo0xHex(r.relayerRewardAddress)])).toEqual([[1n, A]]);
    expect(bytesToHex(m.message)).toBe('01020304');
    expect(bytesToHex(encodeTeleporterMessage(m))).toBe(bytesToHex(bytes));
  });

  it('uint256 fields keep values beyond 64 bits', () => {
    const big = (1n << 256n) - 1n;
    const m = decodeTeleporterMessage(hexToBytes(handEncode({ ...icmTestMessage(destinationHex), nonce: big, gasLimit: 1n << 200n })))!;
    expect(m.messageNonce).toBe(big);
    expect(m.requiredGasLimit).toBe(1n << 200n);
  });
});

// Word i of the encoding starts at byte 32 * i: 0 is the tuple offset, 1-8 the tuple's head
// (nonce, origin, destination chain, destination, gas limit, 3 offsets), then the tails.
function withWord(bytes: Uint8Array, index: number, value: bigint): Uint8Array {
  const out = Uint8Array.from(bytes);
  out.set(hexToBytes(word(value)), index * 32);
  return out;
}

describe('decodeTeleporterMessage: what is not Teleporter is null, never a throw', () => {
  const good = hexToBytes(handEncode(icmTestMessage('11'.repeat(32))));
  const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

  it('the unmodified encoding decodes (so every null below is the mutation\'s doing)', () => {
    expect(decodeTeleporterMessage(good)).not.toBeNull();
  });

  it('rejects extra or missing bytes', () => {
    expect(decodeTeleporterMessage(concat(good, new Uint8Array(32)))).toBeNull();
    expect(decodeTeleporterMessage(concat(good, new Uint8Array(1)))).toBeNull();
    expect(decodeTeleporterMessage(good.subarray(0, good.length - 32))).toBeNull();
    expect(decodeTeleporterMessage(good.subarray(0, good.length - 1))).toBeNull();
    expect(decodeTeleporterMessage(new Uint8Array(0))).toBeNull();
  });

  it('rejects encodings that a lenient ABI decoder would accept but abi.encode never produces', () => {
    // Dirty high bytes in an address word: Solidity's decoder reverts, a lenient one truncates.
    const dirtyAddress = Uint8Array.from(good);
    dirtyAddress[2 * 32] = 1;
    expect(decodeTeleporterMessage(dirtyAddress)).toBeNull();
    // Non-zero padding after the 4-byte message.
    const dirtyPadding = Uint8Array.from(good);
    dirtyPadding[good.length - 1] = 1;
    expect(decodeTeleporterMessage(dirtyPadding)).toBeNull();
    // The tuple placed at 0x40 behind a spare word: decodable, not canonical.
    const shifted = concat(hexToBytes(word(64)), new Uint8Array(32), good.subarray(32));
    expect(decodeTeleporterMessage(shifted)).toBeNull();
    // The receipts offset aliased onto the allowed-relayers array (both have one 32-byte element
    // pair at most, so the bytes still decode).
    expect(decodeTeleporterMessage(withWord(good, 7, 8n * 32n))).toBeNull();
  });

  it('rejects lengths and offsets beyond the data without allocating or looping on them', () => {
    expect(decodeTeleporterMessage(withWord(good, 9, (1n << 64n) - 1n))).toBeNull(); // relayer count
    expect(decodeTeleporterMessage(withWord(good, 9, (1n << 256n) - 1n))).toBeNull();
    expect(decodeTeleporterMessage(withWord(good, 6, 1n << 40n))).toBeNull(); // relayers offset
    const messageLengthWord = good.length / 32 - 2;
    expect(decodeTeleporterMessage(withWord(good, messageLengthWord, 1000n))).toBeNull();
  });

  it('other payloads are not Teleporter: L1 messages, hashes, random bytes', () => {
    const l1 = encodeL1Message({ type: 'L1ValidatorWeight', validationId: new Uint8Array(32).fill(7), nonce: 4n, weight: 41n });
    expect(decodeTeleporterMessage(l1)).toBeNull();
    expect(teleporterMessageOfPayload(parsePayload(encodeAddressedCall(TELEPORTER_MESSENGER_V1_ADDRESS, l1)))).toBeNull();
    expect(decodeTeleporterMessage(new Uint8Array(32 * 12))).toBeNull();
  });

  it('property: arbitrary bytes behind the 0x20 offset word never throw and never decode unless canonical', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 1200 }), (tail) => {
        const input = concat(hexToBytes(word(32)), tail);
        const m = decodeTeleporterMessage(input);
        if (m !== null) expect(bytesToHex(encodeTeleporterMessage(m))).toBe(bytesToHex(input));
      }),
      { numRuns: 300 },
    );
  });

  it('property: a valid encoding with one byte changed never throws; if it still decodes, it is canonical', () => {
    fc.assert(
      fc.property(fc.nat({ max: good.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const input = Uint8Array.from(good);
        input[at]! ^= xor;
        const m = decodeTeleporterMessage(input);
        if (m !== null) expect(bytesToHex(encodeTeleporterMessage(m))).toBe(bytesToHex(input));
      }),
      { numRuns: 500 },
    );
  });
});

describe('encodeTeleporterMessage', () => {
  const address = fc.uint8Array({ minLength: 20, maxLength: 20 });
  const uint256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
  const message: fc.Arbitrary<TeleporterMessage> = fc.record({
    messageNonce: uint256,
    originSenderAddress: address,
    destinationBlockchainID: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    destinationAddress: address,
    requiredGasLimit: uint256,
    allowedRelayerAddresses: fc.array(address, { maxLength: 4 }),
    receipts: fc.array(fc.record({ receivedMessageNonce: uint256, relayerRewardAddress: address }), { maxLength: 4 }),
    message: fc.uint8Array({ maxLength: 200 }),
  });

  it('property: round-trips through decode, and matches the hand layout', () => {
    fc.assert(
      fc.property(message, (m) => {
        const bytes = encodeTeleporterMessage(m);
        expect(decodeTeleporterMessage(bytes)).toEqual(m);
        const hand = handEncode({
          nonce: m.messageNonce,
          origin: bytesToHex(m.originSenderAddress),
          destinationChain: bytesToHex(m.destinationBlockchainID),
          destination: bytesToHex(m.destinationAddress),
          gasLimit: m.requiredGasLimit,
          relayers: m.allowedRelayerAddresses.map(bytesToHex),
          receipts: m.receipts.map((r) => [r.receivedMessageNonce, bytesToHex(r.relayerRewardAddress)]),
          message: bytesToHex(m.message),
        });
        expect(bytesToHex(bytes)).toBe(hand);
      }),
      { numRuns: 200 },
    );
  });

  it('names the field of the wrong size or range', () => {
    const { payload } = fujiPayload();
    const m = decodeTeleporterMessage(payload)!;
    expect(() => encodeTeleporterMessage({ ...m, destinationBlockchainID: new Uint8Array(31) })).toThrow(
      new WarpFormatError('TeleporterMessage.destinationBlockchainID', 'must be 32 bytes, got 31'),
    );
    expect(() => encodeTeleporterMessage({ ...m, allowedRelayerAddresses: [new Uint8Array(20), new Uint8Array(32)] })).toThrow(
      /TeleporterMessage\.allowedRelayerAddresses\[1\]: must be 20 bytes/,
    );
    expect(() => encodeTeleporterMessage({ ...m, messageNonce: -1n })).toThrow(/TeleporterMessage\.messageNonce: must be a uint256/);
    expect(() => encodeTeleporterMessage({ ...m, requiredGasLimit: 1n << 256n })).toThrow(WarpFormatError);
  });
});
