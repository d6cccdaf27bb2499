// Wire formats: protobuf messages, framing limits, zstd (and its bombs), bloom filters,
// ACP-118 app bytes and request-ID parity.
import { beforeAll, describe, expect, it } from 'vitest';
import { create, toBinary } from '@bufbuild/protobuf';
import { sha256 } from '@noble/hashes/sha2.js';
import { MessageSchema, PingSchema } from '../../src/p2p/gen/p2p/p2p_pb.js';
import { decodeMessage, encodeMessage } from '../../src/p2p/messages.js';
import { encodeFrame, FrameDecoder } from '../../src/p2p/frames.js';
import { initCompression, zstdCompress, zstdDecompressCapped } from '../../src/p2p/compression.js';
import { bloomAdd, bloomContains, bloomHash, gossipId, marshalBloomFilter, newBloomFilter, parseBloomFilter } from '../../src/p2p/bloom.js';
import { appRequestFrame, decodeSignatureResponse, decodeUvarint, encodeSignatureRequestAppBytes, encodeUvarint, OddRequestIds, decodeSignatureRequest, signatureAppRequest } from '../../src/p2p/acp118.js';
import { MAX_MESSAGE_BYTES } from '../../src/p2p/constants.js';
import { P2PProtocolError } from '../../src/p2p/errors.js';

beforeAll(() => initCompression());

const MiB = 1024 * 1024;

describe('p2p.Message codec', () => {
  it('encodes an empty Pong as its field (tag 12, length 0), never as an empty message', () => {
    const bytes = encodeMessage({ case: 'pong', value: { $typeName: 'p2p.Pong' } });
    expect([...bytes]).toEqual([0x62, 0x00]);
    const d = decodeMessage(bytes, MAX_MESSAGE_BYTES);
    expect(d.kind === 'message' && d.body.case).toBe('pong');
  });

  it('round-trips a Handshake field by field', () => {
    const bytes = encodeMessage({
      case: 'handshake',
      value: {
        $typeName: 'p2p.Handshake',
        networkId: 5,
        myTime: 1_700_000_000n,
        ipAddr: Uint8Array.of(127, 0, 0, 1),
        ipPort: 9651,
        upgradeTime: 253_402_300_799n,
        ipSigningTime: 1_699_999_999n,
        ipNodeIdSig: Uint8Array.of(1, 2, 3),
        trackedSubnets: [new Uint8Array(32).fill(7)],
        client: { $typeName: 'p2p.Client', name: 'avalanchego', major: 1, minor: 15, patch: 0 },
        supportedAcps: [118],
        objectedAcps: [25],
        knownPeers: { $typeName: 'p2p.BloomFilter', filter: Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0, 0), salt: Uint8Array.of(9) },
        ipBlsSig: new Uint8Array(96).fill(2),
        allSubnets: true,
      },
    });
    const d = decodeMessage(bytes, MAX_MESSAGE_BYTES);
    if (d.kind !== 'message' || d.body.case !== 'handshake') throw new Error('not a handshake');
    const h = d.body.value;
    expect([h.networkId, h.myTime, h.ipPort, h.ipSigningTime, h.client?.minor, h.allSubnets]).toEqual([5, 1_700_000_000n, 9651, 1_699_999_999n, 15, true]);
    expect(h.trackedSubnets[0]).toEqual(new Uint8Array(32).fill(7));
    expect(h.supportedAcps).toEqual([118]);
  });

  it('treats a message type it does not model as unknown, and skips unknown fields inside known ones', () => {
    // field 25 (p2p.Get) with a length-delimited body: a real avalanchego message we do not model
    expect(decodeMessage(Uint8Array.of(0xca, 0x01, 0x02, 0x08, 0x01), MAX_MESSAGE_BYTES)).toEqual({ kind: 'unknown' });
    // Ping with uptime 5 plus an unknown field 9 (varint 1)
    const ping = [...toBinary(PingSchema, create(PingSchema, { uptime: 5 })), 0x48, 0x01];
    const d = decodeMessage(Uint8Array.of(0x5a, ping.length, ...ping), MAX_MESSAGE_BYTES);
    expect(d.kind === 'message' && d.body.case === 'ping' && d.body.value.uptime).toBe(5);
  });

  it('refuses bytes that are not protobuf', () => {
    expect(() => decodeMessage(Uint8Array.of(0xff, 0xff, 0xff), MAX_MESSAGE_BYTES)).toThrow(P2PProtocolError);
  });

  it('compresses only the kinds avalanchego compresses and decodes them back', () => {
    const pong = encodeMessage({ case: 'pong', value: { $typeName: 'p2p.Pong' } }, { compress: true });
    expect([...pong]).toEqual([0x62, 0x00]);
    const app = encodeMessage({ case: 'appGossip', value: { $typeName: 'p2p.AppGossip', chainId: new Uint8Array(32), appBytes: new Uint8Array(1000).fill(1) } }, { compress: true });
    expect(app[0]).toBe(0x12); // field 2, compressed_zstd
    const d = decodeMessage(app, MAX_MESSAGE_BYTES);
    expect(d.kind === 'message' && d.compressed && d.body.case).toBe('appGossip');
  });

  it('refuses a compressed message inside a compressed message and an empty compressed field', () => {
    const inner = toBinary(MessageSchema, create(MessageSchema, { message: { case: 'compressedZstd', value: zstdCompress(Uint8Array.of(0x62, 0)) } }));
    const outer = toBinary(MessageSchema, create(MessageSchema, { message: { case: 'compressedZstd', value: zstdCompress(inner) } }));
    expect(() => decodeMessage(outer, MAX_MESSAGE_BYTES)).toThrow(/compressed message inside/);
    expect(() => decodeMessage(Uint8Array.of(0x12, 0x00), MAX_MESSAGE_BYTES)).toThrow(/empty compressed/);
  });
});

describe('zstd', () => {
  it('refuses a frame that declares more than 2 MiB before decompressing anything', () => {
    const bomb = zstdCompress(new Uint8Array(2 * MiB + 1));
    expect(bomb.length).toBeLessThan(1024);
    expect(() => zstdDecompressCapped(bomb, 2 * MiB)).toThrow(/declares 2097153 bytes/);
    expect(zstdDecompressCapped(zstdCompress(new Uint8Array(2 * MiB)), 2 * MiB).length).toBe(2 * MiB);
  });

  it('refuses a frame without a declared size that inflates past the cap (RLE blocks)', () => {
    // Frame header: magic, descriptor 0 (no content size, not single-segment), window 2^23.
    const header = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x68];
    const rle = (last: boolean, size: number): number[] => {
      const h = (size << 3) | (1 << 1) | (last ? 1 : 0);
      return [h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 0x41];
    };
    const blocks: number[] = [];
    for (let i = 0; i < 17; i++) blocks.push(...rle(i === 16, 128 * 1024)); // 17 × 128 KiB = 2.125 MiB
    const frame = Uint8Array.from([...header, ...blocks]);
    expect(frame.length).toBeLessThan(100);
    expect(() => zstdDecompressCapped(frame, 2 * MiB)).toThrow(P2PProtocolError);
    // The same stream with 16 blocks (exactly 2 MiB) is fine: the cap, not the format, refused it.
    const ok = Uint8Array.from([...header, ...Array.from({ length: 16 }, (_, i) => rle(i === 15, 128 * 1024)).flat()]);
    const out = zstdDecompressCapped(ok, 2 * MiB);
    expect(out.length).toBe(2 * MiB);
    expect(out[12345]).toBe(0x41);
  });

  it('refuses garbage and a reserved header bit', () => {
    expect(() => zstdDecompressCapped(Uint8Array.of(1, 2, 3, 4, 5, 6, 7), MiB)).toThrow(/not a zstd frame/);
    expect(() => zstdDecompressCapped(Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x08, 0, 0), MiB)).toThrow(/reserved bit/);
  });
});

describe('framing', () => {
  it('prefixes a 4-byte big-endian length that does not count itself', () => {
    expect([...encodeFrame(Uint8Array.of(9, 8, 7), MAX_MESSAGE_BYTES)]).toEqual([0, 0, 0, 3, 9, 8, 7]);
  });

  it('reassembles frames split across chunks and several frames in one chunk', () => {
    const d = new FrameDecoder(MAX_MESSAGE_BYTES);
    const two = [...encodeFrame(Uint8Array.of(1, 2), 100), ...encodeFrame(Uint8Array.of(3), 100)];
    expect(d.push(Uint8Array.from(two.slice(0, 3)))).toEqual([]);
    expect(d.push(Uint8Array.from(two.slice(3)))).toEqual([Uint8Array.of(1, 2), Uint8Array.of(3)]);
    expect(d.bufferedBytes).toBe(0);
  });

  it('refuses a length over 2 MiB as soon as the 4 length bytes arrive', () => {
    const d = new FrameDecoder(MAX_MESSAGE_BYTES);
    // The frame before the bad length is still delivered; then the stream stops.
    expect(d.push(Uint8Array.of(0, 0, 0, 1, 7, 0x00, 0x20, 0x00, 0x01))).toEqual([Uint8Array.of(7)]);
    expect(d.error?.message).toMatch(/2097153-byte message/);
    expect(d.push(Uint8Array.of(0, 0, 0, 1, 8))).toEqual([]);
    const ok = new FrameDecoder(MAX_MESSAGE_BYTES);
    expect(ok.push(Uint8Array.of(0x00, 0x20, 0x00, 0x00))).toEqual([]); // exactly 2 MiB is allowed
    expect(() => encodeFrame(new Uint8Array(MAX_MESSAGE_BYTES + 1), MAX_MESSAGE_BYTES)).toThrow(/exceeds/);
  });
});

describe('bloom filter (utils/bloom)', () => {
  it('parses what it marshals and keeps what was added', () => {
    const f = newBloomFilter(3, 16);
    const keys = Array.from({ length: 20 }, (_, i) => bloomHash(Uint8Array.of(i), Uint8Array.of(1, 2)));
    for (const k of keys) bloomAdd(f, k);
    const g = parseBloomFilter(marshalBloomFilter(f));
    expect(g.seeds).toEqual(f.seeds);
    for (const k of keys) expect(bloomContains(g, k)).toBe(true);
  });

  it('computes membership as avalanchego: rotl64(h, 17) ^ seed, bit index mod 8·entries', () => {
    // One seed of 0 and one entry byte: index = rotl64(h, 17) mod 8.
    const f = { seeds: [0n], entries: new Uint8Array(1) };
    const h = 0x8000_0000_0000_0001n; // rotl 17 → bits 16 and 17 set → mod 8 = 0
    bloomAdd(f, h);
    expect(f.entries[0]).toBe(1);
    // The key hash is the first 8 bytes (big-endian) of sha256(key ‖ salt).
    const digest = sha256(Uint8Array.of(1, 2, 3, 4));
    expect(bloomHash(Uint8Array.of(1, 2), Uint8Array.of(3, 4))).toBe(Buffer.from(digest).readBigUInt64BE(0));
    expect(gossipId(new Uint8Array(20).fill(1), 7n)).toEqual(sha256(Uint8Array.from([...new Uint8Array(20).fill(1), 0, 0, 0, 0, 0, 0, 0, 7])));
  });

  it('refuses what read_filter.go refuses', () => {
    expect(() => parseBloomFilter(new Uint8Array())).toThrow(/invalid num hashes/);
    expect(() => parseBloomFilter(Uint8Array.of(0, 0))).toThrow(/too few hashes/);
    expect(() => parseBloomFilter(Uint8Array.from([17, ...new Uint8Array(17 * 8 + 1)]))).toThrow(/too many hashes/);
    expect(() => parseBloomFilter(Uint8Array.from([1, ...new Uint8Array(8)]))).toThrow(/too few entries/);
    expect(parseBloomFilter(Uint8Array.from([16, ...new Uint8Array(16 * 8 + 1)])).seeds.length).toBe(16);
  });
});

describe('ACP-118 app bytes', () => {
  it('encodes one request’s SignatureRequest once, however many validators it goes to (each AppRequest its own ID and deadline)', () => {
    const req = { chainId: new Uint8Array(32).fill(1), message: Uint8Array.of(1, 2, 3), justification: Uint8Array.of(4) };
    const [a, b] = [signatureAppRequest(req, 1, 2_000), signatureAppRequest(req, 3, 1_000)];
    if (a.case !== 'appRequest' || b.case !== 'appRequest') throw new Error('not AppRequests');
    expect(b.value.appBytes).toBe(a.value.appBytes);
    expect([a.value.requestId, b.value.requestId, a.value.deadline, b.value.deadline]).toEqual([1, 3, 2_000_000_000n, 1_000_000_000n]);
    expect(a.value.appBytes).toEqual(encodeSignatureRequestAppBytes(req.message, req.justification));
    const other = signatureAppRequest({ ...req, message: Uint8Array.of(9) }, 5, 1_000);
    expect(other.case === 'appRequest' && decodeSignatureRequest(other.value.appBytes.subarray(1)).message).toEqual(Uint8Array.of(9));
  });

  it('prefixes the SignatureRequest with uvarint handler ID 2', () => {
    const app = encodeSignatureRequestAppBytes(Uint8Array.of(1, 2), Uint8Array.of(3));
    expect(app[0]).toBe(2);
    expect(decodeSignatureRequest(app.subarray(1))).toEqual({ message: Uint8Array.of(1, 2), justification: Uint8Array.of(3) });
    expect([...app.subarray(1)]).toEqual([0x0a, 2, 1, 2, 0x12, 1, 3]);
  });

  it('reads uvarints as Go binary.Uvarint does', () => {
    expect(decodeUvarint(encodeUvarint(300))).toEqual({ value: 300n, length: 2 });
    expect(decodeUvarint(Uint8Array.of(0x80))).toBeUndefined();
    expect(decodeUvarint(new Uint8Array(11).fill(0xff))).toBeUndefined();
  });

  it('decodes a SignatureResponse and refuses non-protobuf bytes', () => {
    expect(decodeSignatureResponse(Uint8Array.of(0x0a, 2, 5, 6))).toEqual(Uint8Array.of(5, 6));
    expect(() => decodeSignatureResponse(Uint8Array.of(0x0a, 9))).toThrow();
  });

  it('hands out only odd request IDs, skipping those in use and wrapping at 2^32', () => {
    const ids = new OddRequestIds();
    const taken = new Set<number>([3]);
    const got = [ids.take((id) => taken.has(id)), ids.take((id) => taken.has(id)), ids.take((id) => taken.has(id))];
    expect(got).toEqual([1, 5, 7]);
    const wrap = new OddRequestIds();
    (wrap as unknown as { next: number }).next = 0xffffffff;
    expect([wrap.take(() => false), wrap.take(() => false)]).toEqual([0xffffffff, 1]);
  });
});

describe('the AppRequest frame encoded from shared parts', () => {
  it('is byte for byte what the protobuf codec writes, for any request ID, deadline and size', () => {
    const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
    for (const [messageLength, justificationLength] of [[0, 0], [40, 0], [200, 3], [20_000, 700]] as const) {
      const req = { chainId: bytes(32, messageLength), message: bytes(messageLength, 1), justification: bytes(justificationLength, 2) };
      for (const requestId of [1, 127, 129, 16_385, 0xffffffff]) {
        for (const timeoutMs of [0.4, 1, 5_000, 600_000, 10_000_000]) {
          const expected = encodeFrame(encodeMessage(signatureAppRequest(req, requestId, timeoutMs)), MAX_MESSAGE_BYTES);
          expect(appRequestFrame(req, requestId, timeoutMs, MAX_MESSAGE_BYTES)).toEqual(expected);
        }
      }
    }
    // An empty chain ID is left out, as proto3 leaves out empty bytes.
    const noChain = { chainId: new Uint8Array(0), message: bytes(10, 3), justification: new Uint8Array(0) };
    expect(appRequestFrame(noChain, 3, 10, MAX_MESSAGE_BYTES)).toEqual(encodeFrame(encodeMessage(signatureAppRequest(noChain, 3, 10)), MAX_MESSAGE_BYTES));
  });

  it('refuses a message over the limit as encodeFrame does', () => {
    const req = { chainId: new Uint8Array(32), message: new Uint8Array(5_000), justification: new Uint8Array(0) };
    expect(() => appRequestFrame(req, 1, 1_000, 4_096)).toThrow(P2PProtocolError);
    expect(() => encodeFrame(encodeMessage(signatureAppRequest(req, 1, 1_000)), 4_096)).toThrow(P2PProtocolError);
  });
});
