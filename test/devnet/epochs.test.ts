// Signed for the chain that verifies it, through the devnet: its EVM L1 chain reports an epoch at
// a P-Chain height before the featured validator joined the L1, so the set there differs from the
// current one in who signs. A Teleporter message to that chain, or any message naming it as its
// destination, comes back signed by the set at the epoch height, verifies there (and not against
// the current set), says so in x-warpgate-pchain-height, the log line and the metrics; an explicit
// pChainHeight wins; no message carries a redundant signer. A second service on the same node and
// signers shows the epoch advancing, the signing-subnet allowlist (403, no peer asked) and
// destinations that cannot be read (502 naming them).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import { loadConfig } from '../../src/config/config.js';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.js';
import { PChainClient } from '../../src/node/pchain.js';
import { createLogger } from '../../src/service/logger.js';
import { startService, type Service } from '../../src/service/start.js';
import { canonicalSet } from '../../src/validators/canonical-set.js';
import { requiredWeight } from '../../src/validators/quorum.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { decodeSigners } from '../../src/warp/bitset.js';
import { cb58Encode, idToString, parseCb58Id, PRIMARY_NETWORK_ID } from '../../src/warp/cb58.js';
import { bytesTo0xHex, hexToBytes } from '../../src/warp/hex.js';
import { parseSignedMessage } from '../../src/warp/signed-message.js';
import { refusedUrl } from '../node/rpc-server.js';
import { CapturedLog } from '../ops/helpers.js';
import { WARPGATE } from '../source-cli.js';

const noble = createNobleBackend();
const log = new CapturedLog();
let devnet: Devnet;
let pchain: PChainClient;
let subnetId: Uint8Array;
let epochHeight: number;
let dir: string;

beforeAll(async () => {
  devnet = await startDevnet({
    validators: 8,
    port: 0,
    logger: createLogger('info', log),
    configOverrides: { 'aggregation.deadlineMs': 4_000 },
  });
  pchain = new PChainClient({ nodeBaseUrl: devnet.node.url, timeoutMs: 5_000 });
  subnetId = parseCb58Id(devnet.info.subnetId);
  epochHeight = devnet.node.epochs.current.pChainHeight;
  dir = await mkdtemp(join(tmpdir(), 'warpgate-epochs-'));
}, 120_000);
afterAll(async () => {
  await devnet?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  json: Record<string, unknown>;
  height: string | null;
  source: string | null;
}

async function post(url: string, body: unknown): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, height: res.headers.get('x-warpgate-pchain-height'), source: res.headers.get('x-warpgate-pchain-height-source') };
}
const glacier = (base = devnet.info.url): string => `${base}/v1/signatureAggregator/fuji/aggregateSignatures`;

async function verifiesAt(signedHex: string, height: number | 'current', quorum = 67) {
  const entries = height === 'current' ? await pchain.getCurrentValidators(subnetId) : await pchain.getValidatorsAt(height, subnetId);
  return verifySignedMessage(hexToBytes(signedHex), entries, quorum, devnet.info.networkId, noble);
}

function warpgateVerify(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...WARPGATE, 'verify', ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

async function metric(base: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('the devnet’s destination chain', () => {
  it('reports an epoch at a height whose set lacks a validator the current set has', async () => {
    const { registration } = devnet.genesis.heights;
    expect(epochHeight).toBe(registration - 1);
    const atEpoch = await pchain.getValidatorsAt(epochHeight, subnetId);
    const current = await pchain.getCurrentValidators(subnetId);
    const featured = devnet.genesis.validators[devnet.genesis.validators.length - 1]!.nodeId;
    expect(atEpoch.map((e) => e.nodeId)).not.toContain(featured);
    expect(current.map((e) => e.nodeId)).toContain(featured);
  });
});

describe('signed at the destination’s epoch height', () => {
  it('a Teleporter message is signed by the set at the epoch height and verifies there, not against the current set', async () => {
    const before = await metric(devnet.info.url, 'warpgate_pchain_height_source_total', 'source="epoch"');
    const { status, json, height, source } = await post(glacier(), { message: devnet.exampleTeleporterMessageHex('to the L1 chain') });
    expect(status).toBe(201);
    expect({ height, source }).toEqual({ height: String(epochHeight), source: 'epoch' });
    const signed = json.signedMessage as string;
    expect((await verifiesAt(signed, epochHeight)).valid).toBe(true);
    expect((await verifiesAt(signed, 'current')).valid).toBe(false);
    expect(await metric(devnet.info.url, 'warpgate_pchain_height_source_total', 'source="epoch"')).toBe(before + 1);

    // warpgate verify, given getValidatorsAt(epoch height) as a user would save it.
    const file = join(dir, 'at-epoch.json');
    const saved = await pchain.call('platform.getValidatorsAt', { height: epochHeight, subnetID: devnet.info.subnetId });
    await writeFile(file, JSON.stringify(saved));
    const run = await warpgateVerify(['--message', signed, '--validators', file, '--network-id', String(devnet.info.networkId)]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ valid: true });

    // The request's log line names the height and where it came from.
    const line = log.records.find((r) => r.req?.url?.endsWith('/aggregateSignatures') && r.pChainHeight === epochHeight);
    expect(line).toMatchObject({ pChainHeightSource: 'epoch', destinationBlockchainId: devnet.info.blockchainId, res: { statusCode: 201 } });
  });

  it('any message with destinationBlockchainId (cb58 or hex, both dialects) is signed at that chain’s epoch height', async () => {
    const glacierAnswer = await post(glacier(), { message: devnet.exampleMessageHex('plain, to the L1 chain'), destinationBlockchainId: devnet.info.blockchainId });
    expect(glacierAnswer).toMatchObject({ status: 201, height: String(epochHeight), source: 'epoch' });
    expect((await verifiesAt(glacierAnswer.json.signedMessage as string, epochHeight)).valid).toBe(true);
    const icm = await post(`${devnet.info.url}/aggregate-signatures`, {
      message: devnet.exampleMessageHex('icm, to the L1 chain'),
      'destination-blockchain-id': bytesTo0xHex(parseCb58Id(devnet.info.blockchainId)),
    });
    expect(icm).toMatchObject({ status: 200, height: String(epochHeight), source: 'epoch' });
    expect((await verifiesAt(icm.json['signed-message'] as string, epochHeight)).valid).toBe(true);
  });

  it('GET …/{txHash} too: the header names the height, and destinationBlockchainId in the query signs at the epoch height', async () => {
    const url = `${glacier()}/${devnet.info.l1ConversionTxId}`;
    const plain = await fetch(url, { signal: AbortSignal.timeout(15_000) });
    expect(plain.status).toBe(201);
    expect(plain.headers.get('x-warpgate-pchain-height')).toBe(String(devnet.genesis.proposedHeight));
    expect(plain.headers.get('x-warpgate-pchain-height-source')).toBe('proposed');
    const toChain = await fetch(`${url}?destinationBlockchainId=${devnet.info.blockchainId}`, { signal: AbortSignal.timeout(15_000) });
    expect(toChain.status).toBe(201);
    expect(toChain.headers.get('x-warpgate-pchain-height')).toBe(String(epochHeight));
    const { signedMessage } = (await toChain.json()) as { signedMessage: string };
    expect((await verifiesAt(signedMessage, epochHeight)).valid).toBe(true);
  });

  it('the same request with an explicit pChainHeight uses that height', async () => {
    const explicit = devnet.genesis.heights.weightChange;
    const { status, json, height, source } = await post(glacier(), { message: devnet.exampleTeleporterMessageHex('explicit'), pChainHeight: explicit });
    expect(status).toBe(201);
    expect({ height, source }).toEqual({ height: String(explicit), source: 'explicit' });
    expect((await verifiesAt(json.signedMessage as string, explicit)).valid).toBe(true);
  });

  it('without a destination: the P-Chain’s proposed height', async () => {
    const { status, json, height, source } = await post(glacier(), { message: devnet.exampleMessageHex('no destination') });
    expect(status).toBe(201);
    expect({ height, source }).toEqual({ height: String(devnet.genesis.proposedHeight), source: 'proposed' });
    expect((await verifiesAt(json.signedMessage as string, devnet.genesis.proposedHeight)).valid).toBe(true);
  });

  it('the epoch is read once and kept (D from info.upgrades), not once per request', async () => {
    for (let i = 0; i < 3; i++) expect((await post(glacier(), { message: devnet.exampleTeleporterMessageHex(`kept ${i}`) })).height).toBe(String(epochHeight));
    const reads = devnet.node.calls.filter((c) => c.method === 'proposervm.getCurrentEpoch');
    const upgrades = devnet.node.calls.filter((c) => c.method === 'info.upgrades');
    // The epoch started when the node did, and a 30 s epoch is kept 20 s from its start.
    expect(reads).toHaveLength(1);
    expect(upgrades).toHaveLength(1);
  });

  it('no signed message carries a redundant signer (uneven weights, quorum + buffer)', async () => {
    const entries = await pchain.getValidatorsAt(epochHeight, subnetId);
    const set = canonicalSet(entries, noble);
    const target = requiredWeight(set.totalWeight, 80);
    for (let i = 0; i < 4; i++) {
      const { status, json } = await post(glacier(), { message: devnet.exampleTeleporterMessageHex(`fewest ${i}`), quorumPercentage: 67, quorumPercentageBuffer: 13 });
      expect(status).toBe(201);
      const signed = parseSignedMessage(hexToBytes(json.signedMessage as string));
      const weights = decodeSigners(signed.signers, set.validators.length).map((index) => set.validators[index]!.weight);
      const total = weights.reduce((a, w) => a + w, 0n);
      expect(total).toBeGreaterThanOrEqual(target);
      for (const w of weights) expect(total - w).toBeLessThan(target);
    }
  });
});

describe('a second service on the same node and signers', () => {
  let service: Service;
  let refused: string;
  const unreachableChain = cb58Encode(new Uint8Array(32).fill(0x5a));
  const unknownChain = cb58Encode(new Uint8Array(32).fill(0x6b));

  beforeAll(async () => {
    refused = await refusedUrl();
    service = await startService(
      loadConfig({
        env: {},
        overrides: {
          port: 0,
          host: '127.0.0.1',
          logLevel: 'silent',
          'upstreams.node': devnet.node.url,
          peers: devnet.config.peers,
          localNetworkId: devnet.genesis.networkId,
          'readiness.subnets': [devnet.info.subnetId],
          'rateLimit.aggregationsPerMinute': 0,
          'aggregation.allowedSigningSubnets': [devnet.info.subnetId],
          // Epochs end at their start: each is kept only minRefreshMs.
          'epochs.durationMs': 0,
          'epochs.minRefreshMs': 100,
          destinations: [{ blockchainId: unreachableChain, rpcUrl: `${refused}/ext/bc/${unreachableChain}` }],
        },
      }),
    );
    const until = Date.now() + 30_000;
    while (service.peers.connectedKeys().length < devnet.info.signers && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('follows the destination to its next epoch once devnet.advanceEpoch has started it', async () => {
    expect((await post(glacier(service.url), { message: devnet.exampleTeleporterMessageHex('before') })).height).toBe(String(epochHeight));
    const advanced = await fetch(`${devnet.node.url}/ext/devnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'devnet.advanceEpoch', params: { pChainHeight: String(devnet.genesis.currentHeight) } }),
    });
    expect(((await advanced.json()) as { result: unknown }).result).toMatchObject({ number: '2', pChainHeight: String(devnet.genesis.currentHeight) });
    let answer: Answer | undefined;
    const until = Date.now() + 10_000;
    do answer = await post(glacier(service.url), { message: devnet.exampleTeleporterMessageHex('after') });
    while (answer.height !== String(devnet.genesis.currentHeight) && Date.now() < until);
    expect(answer).toMatchObject({ status: 201, height: String(devnet.genesis.currentHeight), source: 'epoch' });
    expect((await verifiesAt(answer.json.signedMessage as string, devnet.genesis.currentHeight)).valid).toBe(true);
  });

  it('a signing subnet not in aggregation.allowedSigningSubnets is 403 in the dialect’s shape, and no peer is asked', async () => {
    const responses = async (): Promise<number> => {
      let sum = 0;
      for (const r of ['valid', 'invalid', 'refused', 'timeout', 'error']) sum += await metric(service.url, 'warpgate_signature_responses_total', `result="${r}"`);
      return sum;
    };
    const before = await responses();
    const primary = idToString(PRIMARY_NETWORK_ID);
    const glacierAnswer = await post(glacier(service.url), { message: devnet.exampleMessageHex('not served'), signingSubnetId: primary });
    expect(glacierAnswer.status).toBe(403);
    expect(glacierAnswer.json).toEqual({ message: `signing subnet ${primary} is not served here (aggregation.allowedSigningSubnets)`, statusCode: 403, error: 'Forbidden' });
    const icm = await post(`${service.url}/aggregate-signatures`, { message: devnet.exampleMessageHex('not served either'), 'signing-subnet-id': primary });
    expect(icm).toMatchObject({ status: 403, json: { error: expect.stringMatching(/is not served here/) } });
    expect(await responses()).toBe(before);
  });

  it('a destination that cannot be read is a 502 naming it: a configured URL that refuses, a chain the node does not run', async () => {
    for (const chain of [unreachableChain, unknownChain]) {
      const { status, json, height } = await post(glacier(service.url), { message: devnet.exampleMessageHex(`to ${chain}`), destinationBlockchainId: chain });
      expect(status).toBe(502);
      expect(height).toBeNull();
      expect(json.message).toMatch(new RegExp(`^destination chain ${chain}: its current epoch could not be read \\(proposervm.getCurrentEpoch\\): `));
      expect(json.message).not.toContain(refused);
    }
  });
});
