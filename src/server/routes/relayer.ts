// The relayer's HTTP side (docs/relayer.md): icm-services' manual relay API, `POST /relay
// {blockchain-id, message-id, block-num}` and `POST /relay/message {unsigned-message-bytes,
// source-address}`, and `GET /relay/messages/{id}`, a message's state by its Warp or Teleporter
// message ID. Manual relay spends gas: it exists only with a bearer token configured
// (relayer.manualRelayToken), and none of these routes exists in publicMode (they answer 404 as
// any unknown path). Errors are icm-services' shape, {error}; the RelayerControl decides what it
// can take, and server/errors.ts what status its typed errors get.
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Hex, MessageRecord, RelayerControl } from '../../relayer/ports.js';
import { idToString, parseId } from '../../warp/cb58.js';
import { bytesTo0xHex, hexToBytes } from '../../warp/hex.js';
import { parseUnsignedMessage } from '../../warp/unsigned-message.js';
import { ICM } from '../dialects.js';
import { BadRequestError, HttpError, parseField, sendError } from '../errors.js';

interface RelayerRouteDeps {
  control: RelayerControl;
  /** relayer.manualRelayToken: null, the manual relay API is off. */
  token: string | null;
  publicMode: boolean;
  bodyBytes: number;
  logger: Logger;
}

/** The routes' path prefix: requests under it are answered in icm-services' error shape. */
const RELAY_PATH = '/relay';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A record as JSON: bigints as decimal strings, everything else as stored. */
function recordJson(record: MessageRecord): Record<string, unknown> {
  return JSON.parse(JSON.stringify(record, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>;
}

/** A Warp or Teleporter message ID given as 0x hex (or cb58, as icm-services accepts), as 0x lower-case hex. */
function messageIdOf(field: string, value: unknown): Hex {
  if (typeof value !== 'string') throw new BadRequestError(field, 'must be a 32-byte ID (0x hex or cb58)');
  return parseField(field, () => bytesTo0xHex(parseId(value, field))) as Hex;
}

/** icm-services' answer (the transaction hash, once there is one) and the message's state. */
function relayAnswer(record: MessageRecord): { status: number; body: Record<string, unknown> } {
  const last = record.submissions[record.submissions.length - 1];
  const txHash = record.deliveredTxHash ?? last?.txHash;
  return {
    status: record.status === 'delivered' ? 200 : 202,
    body: {
      ...(txHash === undefined ? {} : { 'transaction-hash': txHash }),
      'message-id': record.message.warpMessageId,
      'teleporter-message-id': record.message.teleporterMessageId,
      status: record.status,
      ...(record.reason === undefined ? {} : { reason: record.reason }),
    },
  };
}

/** Constant-time comparison of the Authorization header with `Bearer <token>`. */
function bearerCheck(token: string) {
  const expected = createHash('sha256').update(token).digest();
  return (req: Request, _res: Response, next: NextFunction): void => {
    const header = req.headers.authorization;
    const given = typeof header === 'string' && /^Bearer /i.test(header) ? header.slice(7).trim() : undefined;
    const ok = given !== undefined && timingSafeEqual(createHash('sha256').update(given).digest(), expected);
    if (!ok) return next(new HttpError(401, given === undefined ? 'manual relay needs Authorization: Bearer <relayer.manualRelayToken>' : 'the bearer token is not the manual relay token', { 'www-authenticate': 'Bearer' }));
    next();
  };
}

/** The unsigned message of `unsigned-message-bytes`: base64 as Go's []byte is sent (icm-services), or 0x hex. */
function unsignedMessageOf(value: unknown): Hex {
  const field = 'unsigned-message-bytes';
  if (typeof value !== 'string' || value === '') throw new BadRequestError(field, 'must be the unsigned Warp message, base64 (as icm-services takes it) or 0x hex');
  let bytes: Uint8Array;
  if (/^0x/i.test(value)) bytes = parseField(field, () => hexToBytes(value, field));
  else {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) throw new BadRequestError(field, 'is neither base64 nor 0x hex');
    bytes = Uint8Array.from(Buffer.from(value, 'base64'));
  }
  parseField(field, () => parseUnsignedMessage(bytes));
  return bytesTo0xHex(bytes) as Hex;
}

function bodyObject(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

export function mountRelayerRoutes(app: Express, deps: RelayerRouteDeps): void {
  if (deps.publicMode) return;
  const { control } = deps;
  const fail = (req: Request, res: Response, err: unknown): void => sendError(res, ICM, err, req.log ?? deps.logger);

  app.get(`${RELAY_PATH}/messages/:id`, async (req, res) => {
    try {
      const id = messageIdOf('id', req.params.id);
      const record = await control.find(id);
      if (!record) throw new HttpError(404, `no message ${id} is known here (neither a Warp nor a Teleporter message ID of a stored message)`);
      res.setHeader('cache-control', 'no-store');
      res.json(recordJson(record));
    } catch (err) {
      fail(req, res, err);
    }
  });

  if (deps.token === null) return;
  const json = express.json({ limit: deps.bodyBytes, type: () => true, strict: false });
  const auth = bearerCheck(deps.token);

  app.post(RELAY_PATH, auth, json, async (req, res) => {
    try {
      const body = bodyObject(req);
      const blockchainId = body['blockchain-id'];
      if (typeof blockchainId !== 'string') throw new BadRequestError('blockchain-id', 'must be the source blockchain ID (cb58 or 0x hex)');
      const chain = parseField('blockchain-id', () => parseId(blockchainId, 'blockchain-id'));
      const messageId = messageIdOf('message-id', body['message-id']);
      const blockNumber = body['block-num'];
      if (typeof blockNumber !== 'number' || !Number.isSafeInteger(blockNumber) || blockNumber < 0) throw new BadRequestError('block-num', 'must be the number of the block that holds the message');
      const record = await control.relayFromBlock({ blockchainId: idToString(chain), messageId, blockNumber });
      const { status, body: answer } = relayAnswer(record);
      res.status(status).json(answer);
    } catch (err) {
      fail(req, res, err);
    }
  });

  app.post(`${RELAY_PATH}/message`, auth, json, async (req, res) => {
    try {
      const body = bodyObject(req);
      const unsignedMessage = unsignedMessageOf(body['unsigned-message-bytes']);
      const sourceAddress = body['source-address'];
      if (typeof sourceAddress !== 'string' || !ADDRESS.test(sourceAddress)) throw new BadRequestError('source-address', 'must be the address that sent the message (0x and 40 hex digits)');
      const record = await control.relayMessage({ unsignedMessage, sourceAddress: sourceAddress.toLowerCase() as Hex });
      const { status, body: answer } = relayAnswer(record);
      res.status(status).json(answer);
    } catch (err) {
      fail(req, res, err);
    }
  });
}
