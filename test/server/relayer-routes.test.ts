// The relayer's HTTP routes with a fake RelayerControl: the manual relay API in icm-services'
// shapes exists only with a token and answers 401 without it; publicMode serves none of them;
// what the relayer refuses comes back as a 4xx in icm-services' error shape ({error}); a message
// is found by its Warp or its Teleporter ID.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { Aggregator } from '../../src/aggregator/aggregator.js';
import { loadConfig } from '../../src/config/config.js';
import { RelayerError } from '../../src/relayer/errors.js';
import { createApp } from '../../src/server/app.js';
import { idToString } from '../../src/warp/cb58.js';
import { bytesTo0xHex } from '../../src/warp/hex.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { FakeControl, hex32, messageRecord, sourceMessage, submission } from '../relayer/fakes-surface.js';

const TOKEN = 'a-manual-relay-token-for-tests';
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function serve(control: FakeControl, overrides: Record<string, unknown> = {}): Promise<string> {
  const config = loadConfig({ env: {}, overrides: { 'relayer.manualRelayToken': TOKEN, ...overrides } });
  const app = createApp({
    config,
    aggregator: {} as Aggregator,
    aggregationApi: false,
    logger: pino({ level: 'silent' }),
    metrics: { countRequest: () => undefined, exposition: async () => ({ contentType: 'text/plain', text: '' }) },
    readiness: async () => ({ ready: true, reasons: [], subnets: [] }),
    relayer: control,
  });
  const server = createServer(app);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function call(url: string, init: { method?: string; body?: unknown; token?: string | null } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
  const res = await fetch(url, { method: init.method ?? 'POST', headers, body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const C_CHAIN = 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp';
const unsigned = newUnsignedMessage(5, new Uint8Array(32).fill(7), new Uint8Array([1, 2, 3]));

describe('manual relay', () => {
  it('POST /relay takes icm-services’ body and answers its transaction-hash with the state; 202 until delivered', async () => {
    const control = new FakeControl();
    control.onRelay = async () => messageRecord({ status: 'submitted', submissions: [submission(hex32(8)), submission(hex32(9))] });
    const url = await serve(control);
    const answer = await call(`${url}/relay`, { body: { 'blockchain-id': C_CHAIN, 'message-id': hex32(1), 'block-num': 42 } });
    expect(answer).toMatchObject({ status: 202, json: { 'transaction-hash': hex32(9), 'message-id': hex32(1), 'teleporter-message-id': hex32(2), status: 'submitted' } });
    // icm-services takes IDs as cb58 or hex: both reach the relayer as cb58 chain and 0x hex message IDs.
    const byHexChain = await call(`${url}/relay`, { body: { 'blockchain-id': bytesTo0xHex(new Uint8Array(32).fill(7)), 'message-id': idToString(new Uint8Array(32).fill(1)), 'block-num': 0 } });
    expect(byHexChain.status).toBe(202);
    expect(control.relayed).toEqual([
      { blockchainId: C_CHAIN, messageId: hex32(1), blockNumber: 42 },
      { blockchainId: idToString(new Uint8Array(32).fill(7)), messageId: `0x${'01'.repeat(32)}`, blockNumber: 0 },
    ]);
    control.onRelay = async () => messageRecord({ status: 'delivered', deliveredTxHash: hex32(10) });
    expect(await call(`${url}/relay`, { body: { 'blockchain-id': C_CHAIN, 'message-id': hex32(1), 'block-num': 42 } })).toMatchObject({ status: 200, json: { 'transaction-hash': hex32(10), status: 'delivered' } });
  });

  it('POST /relay/message takes base64 bytes as Go sends []byte, or 0x hex', async () => {
    const control = new FakeControl();
    control.onRelay = async () => messageRecord();
    const url = await serve(control);
    const source = `0x${'AB'.repeat(20)}`;
    expect((await call(`${url}/relay/message`, { body: { 'unsigned-message-bytes': Buffer.from(unsigned.bytes).toString('base64'), 'source-address': source } })).status).toBe(202);
    expect((await call(`${url}/relay/message`, { body: { 'unsigned-message-bytes': bytesTo0xHex(unsigned.bytes), 'source-address': source } })).status).toBe(202);
    expect(control.relayed).toEqual([
      { unsignedMessage: bytesTo0xHex(unsigned.bytes), sourceAddress: source.toLowerCase() },
      { unsignedMessage: bytesTo0xHex(unsigned.bytes), sourceAddress: source.toLowerCase() },
    ]);
  });

  it('refuses what no route allows, what is not there, a relayer stopping: 4xx/503 as {error}', async () => {
    const control = new FakeControl();
    const url = await serve(control);
    const body = { 'blockchain-id': C_CHAIN, 'message-id': hex32(1), 'block-num': 42 };
    expect(await call(`${url}/relay`, { body })).toEqual(expect.objectContaining({ status: 403, json: { error: 'no route relays this message' } }));
    control.onRelay = () => Promise.reject(new RelayerError('not-found', `block 42 of ${C_CHAIN} holds no message ${hex32(1)}`));
    expect(await call(`${url}/relay`, { body })).toMatchObject({ status: 404, json: { error: `block 42 of ${C_CHAIN} holds no message ${hex32(1)}` } });
    control.onRelay = () => Promise.reject(new RelayerError('stopping', 'the relayer is stopping'));
    const stopping = await call(`${url}/relay`, { body });
    expect(stopping).toMatchObject({ status: 503, json: { error: 'the relayer is stopping' } });
    expect(stopping.headers.get('retry-after')).toBe('5');
  });

  it('bad bodies are 400 naming the field, in the same shape; the relayer is not asked', async () => {
    const control = new FakeControl();
    const url = await serve(control);
    for (const [path, body, error] of [
      ['/relay', { 'blockchain-id': 'nope', 'message-id': hex32(1), 'block-num': 1 }, /^blockchain-id: /],
      ['/relay', { 'blockchain-id': C_CHAIN, 'message-id': '0x12', 'block-num': 1 }, /^message-id: /],
      ['/relay', { 'blockchain-id': C_CHAIN, 'message-id': hex32(1), 'block-num': -1 }, /^block-num: /],
      ['/relay', [1, 2], /must be a JSON object/],
      ['/relay', '{"blockchain-id": ', /./],
      ['/relay/message', { 'unsigned-message-bytes': '0x0102', 'source-address': `0x${'ab'.repeat(20)}` }, /^unsigned-message-bytes: /],
      ['/relay/message', { 'unsigned-message-bytes': '%%%', 'source-address': `0x${'ab'.repeat(20)}` }, /^unsigned-message-bytes: is neither base64 nor 0x hex/],
      ['/relay/message', { 'unsigned-message-bytes': bytesTo0xHex(unsigned.bytes), 'source-address': '0x12' }, /^source-address: /],
    ] as const) {
      const answer = await call(`${url}${path}`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(answer.json)).toEqual(['error']);
      expect(answer.json.error).toMatch(error);
    }
    expect(control.relayed).toEqual([]);
  });

  it('needs the bearer token: none or a wrong one is 401 with WWW-Authenticate, and the relayer is not asked', async () => {
    const control = new FakeControl();
    const url = await serve(control);
    const body = { 'blockchain-id': C_CHAIN, 'message-id': hex32(1), 'block-num': 42 };
    for (const token of [null, 'wrong-token-of-some-length']) {
      const answer = await call(`${url}/relay`, { body, token });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(Object.keys(answer.json)).toEqual(['error']);
    }
    expect((await call(`${url}/relay/message`, { body: {}, token: null })).status).toBe(401);
    expect(control.relayed).toEqual([]);
  });

  it('is off without a token (404, nothing asked), and in publicMode nothing of the relayer is served', async () => {
    const control = new FakeControl();
    control.records = [messageRecord()];
    const off = await serve(control, { 'relayer.manualRelayToken': null });
    expect((await call(`${off}/relay`, { body: {} })).status).toBe(404);
    expect((await call(`${off}/relay/message`, { body: {} })).status).toBe(404);
    expect((await call(`${off}/relay/messages/${hex32(1)}`, { method: 'GET' })).status).toBe(200);
    const publicUrl = await serve(control, { publicMode: true });
    expect((await call(`${publicUrl}/relay`, { body: {} })).status).toBe(404);
    expect((await call(`${publicUrl}/relay/messages/${hex32(1)}`, { method: 'GET' })).status).toBe(404);
    expect(control.relayed).toEqual([]);
  });
});

describe('GET /relay/messages/{id}', () => {
  it('finds a message by its Warp or Teleporter ID, bigints as strings; an unknown one is 404, a bad ID 400', async () => {
    const control = new FakeControl();
    control.records = [messageRecord({ status: 'skipped', reason: 'requiredGasLimit 5000000 is above the route’s cap 2000000', message: sourceMessage({ requiredGasLimit: 5_000_000n }) })];
    const url = await serve(control);
    for (const id of [hex32(1), hex32(2), hex32(2).toUpperCase().replace('0X', '0x')]) {
      const answer = await call(`${url}/relay/messages/${id}`, { method: 'GET' });
      expect(answer).toMatchObject({ status: 200, json: { status: 'skipped', reason: expect.stringMatching(/above the route/), message: { requiredGasLimit: '5000000', warpMessageId: hex32(1) } } });
    }
    expect(await call(`${url}/relay/messages/${hex32(5)}`, { method: 'GET' })).toMatchObject({ status: 404, json: { error: expect.stringMatching(/^no message 0x0+5 is known here/) } });
    expect(await call(`${url}/relay/messages/xyz`, { method: 'GET' })).toMatchObject({ status: 400, json: { error: expect.stringMatching(/^id: /) } });
  });
});
