// What a hostile client found on a running devnet, each answered as a client mistake in the
// endpoint's own error shape, before any validator is asked and without an error-level log:
// bodies whose content-encoding lies or is unknown, `{network}` values that name properties of
// Object.prototype, and messages for a network the service's validators are not on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { once } from 'node:events';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { loadConfig } from '../../src/config/config.js';
import { startService, type Service } from '../../src/service/start.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { CapturedLog, scrape, waitFor } from '../ops/helpers.js';

const log = new CapturedLog();
const nodeOnlyLog = new CapturedLog();
let devnet: Devnet;
/** A service on the devnet's node without localNetworkId: its network is what the node says. */
let nodeOnly: Service;

beforeAll(async () => {
  devnet = await startDevnet({ validators: 4, port: 0, logger: pino({ level: 'info' }, log), configOverrides: { 'workers.threads': 1 } });
  nodeOnly = await startService(
    // p2p off: its transport would ask the node's network ID at start, and a test below counts who asks it.
    loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', 'workers.threads': 1, 'upstreams.node': devnet.node.url, 'p2p.enabled': false } }),
    { logger: pino({ level: 'info' }, nodeOnlyLog) },
  );
});
afterAll(async () => {
  await Promise.allSettled([nodeOnly?.close(), devnet?.close()]);
});

type Dialect = 'glacier' | 'icm';
const path = (dialect: Dialect, network = 'fuji'): string =>
  dialect === 'glacier' ? `/v1/signatureAggregator/${network}/aggregateSignatures` : '/aggregate-signatures';

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function send(base: string, target: string, body: string | Buffer, headers: Record<string, string> = {}, method = 'POST'): Promise<Answer> {
  const res = await fetch(`${base}${target}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'GET' ? undefined : body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // kept as text: the assertions below then fail with it shown
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** The error message in the dialect's shape, after checking the shape itself. */
function errorMessage(dialect: Dialect, a: Answer, status: number): string {
  expect(a.status).toBe(status);
  if (dialect === 'icm') {
    expect(Object.keys(a.body)).toEqual(['error']);
    return a.body.error as string;
  }
  expect(a.body).toMatchObject({ statusCode: status });
  expect(Object.keys(a.body).sort()).toEqual(['error', 'message', 'statusCode']);
  return a.body.message as string;
}

function errorLines(captured: CapturedLog): Record<string, any>[] {
  return captured.records.filter((r) => r.level >= 50);
}

async function validatorAnswers(): Promise<number> {
  return (await scrape(devnet.info.url)).sum('warpgate_signature_responses_total');
}

describe('request bodies whose content-encoding does not hold', () => {
  const json = (): string => JSON.stringify({ message: devnet.exampleMessageHex('compressed') });
  const undecodable: [name: string, encoding: string, body: () => Buffer][] = [
    ['gzip that is not gzip', 'gzip', () => Buffer.from('this is not gzip')],
    ['br that is not brotli', 'br', () => Buffer.from('this is not brotli either')],
    ['deflate that is not deflate', 'deflate', () => Buffer.from('nor deflate')],
    ['truncated gzip', 'gzip', () => gzipSync(json()).subarray(0, 15)],
    ['gzip of something that is not JSON', 'gzip', () => gzipSync('{"message": ')],
  ];

  for (const dialect of ['glacier', 'icm'] as const) {
    for (const [name, encoding, body] of undecodable) {
      it(`${dialect}: ${name} is a 400 in the endpoint's shape`, async () => {
        const before = errorLines(log).length;
        const a = await send(devnet.info.url, path(dialect), body(), { 'content-encoding': encoding });
        expect(errorMessage(dialect, a, 400)).toMatch(/^body: /);
        expect(errorLines(log).length).toBe(before);
      });
    }

    it(`${dialect}: an encoding the parser does not know is a 415 naming it`, async () => {
      for (const encoding of ['compress', 'x-made-up']) {
        const a = await send(devnet.info.url, path(dialect), Buffer.from(json()), { 'content-encoding': encoding });
        expect(errorMessage(dialect, a, 415)).toContain(`'${encoding}'`);
      }
    });

    it(`${dialect}: a charset other than UTF-8 is a 415`, async () => {
      const a = await send(devnet.info.url, path(dialect), json(), { 'content-type': 'application/json; charset=koi8-r' });
      expect(errorMessage(dialect, a, 415)).toMatch(/^body: charset 'koi8-r'/);
    });

    it(`${dialect}: a small compressed body over limits.bodyBytes once decoded is a 413`, async () => {
      const bomb = gzipSync(JSON.stringify({ message: '00'.repeat(devnet.config.limits.bodyBytes) }));
      expect(bomb.length).toBeLessThan(devnet.config.limits.bodyBytes / 100);
      const a = await send(devnet.info.url, path(dialect), bomb, { 'content-encoding': 'gzip' });
      expect(errorMessage(dialect, a, 413)).toBe('request body is larger than the limit');
    });

    it(`${dialect}: bodies that do decode are served`, async () => {
      const ok = dialect === 'glacier' ? 201 : 200;
      for (const [encoding, encode] of [
        ['gzip', gzipSync],
        ['br', brotliCompressSync],
        ['deflate', deflateSync],
      ] as const) {
        const body = encode(JSON.stringify({ message: devnet.exampleMessageHex(`${dialect} ${encoding}`) }));
        expect((await send(devnet.info.url, path(dialect), body, { 'content-encoding': encoding })).status).toBe(ok);
      }
    });
  }

  it('a body cut short by the client is not logged as an internal error', async () => {
    const before = errorLines(log).length;
    const socket = connect(devnet.service.port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    const id = 'cut-short-body';
    socket.end(`POST ${path('icm')} HTTP/1.1\r\nHost: warpgate\r\nx-request-id: ${id}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"message":`);
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    // Every line about this request carries its id; the request line comes once it is over.
    await waitFor('the request to be logged', () => (log.records.some((r) => r.req?.id === id && r.res !== undefined) ? true : undefined), 5_000, 10);
    expect(log.records.filter((r) => r.req?.id === id).map((r) => r.level)).not.toContain(50);
    expect(errorLines(log).slice(before)).toEqual([]);
  });
});

describe('{network} values that name properties of Object.prototype', () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  for (const network of names) {
    it(`POST under '${network}' is a 400 naming the networks, and no validator is asked`, async () => {
      const answers = await validatorAnswers();
      const a = await send(devnet.info.url, path('glacier', network), JSON.stringify({ message: devnet.exampleMessageHex(`on ${network}`) }));
      expect(errorMessage('glacier', a, 400)).toBe(`network: must be mainnet, fuji or testnet, got '${network}'`);
      expect(await validatorAnswers()).toBe(answers);
    });

    it(`GET …/${network}/aggregateSignatures/{txHash} is a 400 too`, async () => {
      const a = await send(devnet.info.url, `${path('glacier', network)}/${devnet.info.l1ConversionTxId}`, '', {}, 'GET');
      expect(errorMessage('glacier', a, 400)).toBe(`network: must be mainnet, fuji or testnet, got '${network}'`);
    });
  }
});

describe("a message for another network than the service's validators are on", () => {
  const messageOn = (networkId: number): string =>
    bytesToHex(newUnsignedMessage(networkId, devnet.genesis.blockchainId, encodeAddressedCall(devnet.genesis.managerAddress, new TextEncoder().encode(`network ${networkId}`))).bytes);

  it('icm-services: a network-99 message is a 400 in icm shape before any validator is asked', async () => {
    const answers = await validatorAnswers();
    const a = await send(devnet.info.url, path('icm'), JSON.stringify({ message: messageOn(99) }));
    expect(errorMessage('icm', a, 400)).toBe(`message: is for network ID 99, but this service's validators are on network ID ${devnet.info.networkId}`);
    expect(await validatorAnswers()).toBe(answers);
  });

  it('Glacier: the same rule, even when the path names the message’s network', async () => {
    const answers = await validatorAnswers();
    // fuji is network 5: the path agrees with the message, but the devnet's validators are on 12345.
    const a = await send(devnet.info.url, path('glacier', 'fuji'), JSON.stringify({ message: messageOn(5) }));
    expect(errorMessage('glacier', a, 400)).toBe(`message: is for network ID 5, but this service's validators are on network ID ${devnet.info.networkId}`);
    const b = await send(devnet.info.url, path('glacier', 'mainnet'), JSON.stringify({ message: messageOn(99) }));
    expect(errorMessage('glacier', b, 400)).toMatch(/^network: path names mainnet \(network ID 1\) but the message is for network ID 99/);
    expect(await validatorAnswers()).toBe(answers);
  });

  it('the devnet’s own network is still served in both dialects', async () => {
    expect((await send(devnet.info.url, path('icm'), JSON.stringify({ message: messageOn(devnet.info.networkId) }))).status).toBe(200);
    expect((await send(devnet.info.url, path('glacier', 'mainnet'), JSON.stringify({ message: messageOn(devnet.info.networkId) }))).status).toBe(201);
  });

  it('without localNetworkId the node’s network ID (info.getNetworkID) is the rule, asked once', async () => {
    const asked = (): number => devnet.node.calls.filter((c) => c.method === 'info.getNetworkID').length;
    const before = asked();
    for (const dialect of ['icm', 'glacier'] as const) {
      const a = await send(nodeOnly.url, path(dialect, 'mainnet'), JSON.stringify({ message: messageOn(1) }));
      expect(errorMessage(dialect, a, 400)).toBe(`message: is for network ID 1, but this service's validators are on network ID ${devnet.info.networkId}`);
    }
    expect(asked() - before).toBe(1);
    // The node's own network passes the check; with no signer connected the aggregation then fails
    // as it always has, with the aggregator's 503.
    const own = await send(nodeOnly.url, path('icm'), JSON.stringify({ message: messageOn(devnet.info.networkId) }));
    expect(own.status).toBe(503);
    expect(errorLines(nodeOnlyLog)).toEqual([]);
  });
});
