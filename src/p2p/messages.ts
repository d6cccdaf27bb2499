// p2p.Message encoding and decoding with the generated codec (src/p2p/gen, from proto/), and the
// compression rules of message/messages.go: a compressed message is a Message whose only field
// is compressed_zstd, holding the zstd of the inner Message's bytes. Ping, Pong and Handshake
// are never compressed (message/outbound_msg_builder.go); a node accepts either form of the rest.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { MessageSchema, type Message } from './gen/p2p/p2p_pb.js';
import { P2PProtocolError } from './errors.js';
import { zstdCompress, zstdDecompressCapped } from './compression.js';

export type MessageBody = Exclude<Message['message'], { case: 'compressedZstd' } | { case: undefined }>;
type MessageKind = MessageBody['case'];

/** Message kinds avalanchego may send compressed. */
const COMPRESSIBLE = new Set<MessageKind>(['getPeerList', 'peerList', 'appRequest', 'appResponse', 'appError', 'appGossip']);

export function encodeMessage(body: MessageBody, opts: { compress?: boolean } = {}): Uint8Array {
  const plain = toBinary(MessageSchema, create(MessageSchema, { message: body }));
  if (!opts.compress || !COMPRESSIBLE.has(body.case)) return plain;
  return toBinary(MessageSchema, create(MessageSchema, { message: { case: 'compressedZstd', value: zstdCompress(plain) } }));
}

type DecodedMessage =
  | { kind: 'message'; body: MessageBody; compressed: boolean }
  /** A Message whose oneof case we do not model (or none): avalanchego's "unknown message". */
  | { kind: 'unknown' };

/** Decodes one frame body; throws P2PProtocolError for bytes that are not a p2p.Message. */
export function decodeMessage(bytes: Uint8Array, maxDecompressedBytes: number): DecodedMessage {
  let outer: Message;
  try {
    outer = fromBinary(MessageSchema, bytes);
  } catch (err) {
    throw new P2PProtocolError('unparseable-message', `not a p2p.Message: ${(err as Error).message}`);
  }
  const m = outer.message;
  if (m.case === undefined) return { kind: 'unknown' };
  if (m.case !== 'compressedZstd') return { kind: 'message', body: m, compressed: false };
  if (m.value.length === 0) throw new P2PProtocolError('unparseable-message', 'empty compressed_zstd');
  const plain = zstdDecompressCapped(m.value, maxDecompressedBytes);
  let inner: Message;
  try {
    inner = fromBinary(MessageSchema, plain);
  } catch (err) {
    throw new P2PProtocolError('unparseable-message', `decompressed bytes are not a p2p.Message: ${(err as Error).message}`);
  }
  const im = inner.message;
  if (im.case === undefined) return { kind: 'unknown' };
  if (im.case === 'compressedZstd') throw new P2PProtocolError('unparseable-message', 'a compressed message inside a compressed message');
  return { kind: 'message', body: im, compressed: true };
}
