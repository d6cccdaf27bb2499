// warpgate's identity on the peer network: pinned by p2p.tlsCertFile / tlsKeyFile (the NodeID a
// validatorOnly subnet's allowedNodes lists, and the one the service then claims), a new one each
// start without them, and files that cannot be used refused at start, naming the key.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/bls/index.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { generateStakingCertificate, loadStakingIdentity } from '../../src/p2p/index.js';
import { loadP2PIdentity } from '../../src/service/p2p-identity.js';
import { aggregate, closeWorld, messageHex, startWorld, until } from './p2p-world.js';

const bls = loadBackend('blst');
const dir = mkdtempSync(join(tmpdir(), 'warpgate-p2p-identity-'));
afterAll(async () => {
  await closeWorld();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const p2p = (overrides: Record<string, unknown>) => loadConfig({ env: {}, overrides }).p2p;

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.join('\n');
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('the p2p identity', () => {
  const { certPem, keyPem } = generateStakingCertificate();
  const cert = file('staker.crt', certPem);
  const key = file('staker.key', keyPem);

  it('is the configured certificate (a stable NodeID), and the service connects under it', async () => {
    const pinned = loadP2PIdentity(p2p({ 'p2p.tlsCertFile': cert, 'p2p.tlsKeyFile': key }), bls);
    expect(pinned.pinned).toBe(true);
    expect(pinned.identity.nodeId).toBe(loadStakingIdentity(certPem, keyPem).nodeId);
    const w = await startWorld({ seed: 'pinned-identity', overrides: { 'p2p.tlsCertFile': cert, 'p2p.tlsKeyFile': key } });
    expect(w.service.p2p!.nodeId).toBe(pinned.identity.nodeId);
    await until('a validator to be connected', () => w.service.p2p!.connectedCount() === w.nodes.length);
    // The validators see warpgate under that NodeID.
    await until('the nodes to see it', () => w.nodes.every((n) => n.connectedNodeIds().includes(pinned.identity.nodeId)));
    expect((await aggregate(w.service, messageHex(w, 'pinned'))).status).toBe(201);
  });

  it('is a new one each start without the files, with a throwaway BLS key unless p2p.blsKeyFile gives one', () => {
    const a = loadP2PIdentity(p2p({}), bls);
    const b = loadP2PIdentity(p2p({}), bls);
    expect(a.pinned).toBe(false);
    expect(a.identity.nodeId).not.toBe(b.identity.nodeId);
    expect(a.blsSecretKey).toBeUndefined();
    const sk = file('signer.key', new Uint8Array(32).fill(7));
    expect(loadP2PIdentity(p2p({ 'p2p.blsKeyFile': sk }), bls).blsSecretKey).toBeDefined();
  });

  it('refuses files it cannot use, naming the key', () => {
    expect(problem(() => loadP2PIdentity(p2p({ 'p2p.tlsCertFile': join(dir, 'missing.crt'), 'p2p.tlsKeyFile': key }), bls))).toMatch(/^p2p\.tlsCertFile: .*missing\.crt does not exist$/);
    const other = generateStakingCertificate();
    expect(problem(() => loadP2PIdentity(p2p({ 'p2p.tlsCertFile': cert, 'p2p.tlsKeyFile': file('other.key', other.keyPem) }), bls))).toMatch(/^p2p\.tlsCertFile: .*the staking key does not belong to the certificate/);
    expect(problem(() => loadP2PIdentity(p2p({ 'p2p.blsKeyFile': file('hex.key', 'ab'.repeat(32)) }), bls))).toMatch(/^p2p\.blsKeyFile: .* must hold exactly 32 raw bytes .*found 64$/);
    expect(problem(() => loadP2PIdentity(p2p({ 'p2p.blsKeyFile': file('zero.key', new Uint8Array(32)) }), bls))).toMatch(/^p2p\.blsKeyFile: .* is not a valid BLS secret key/);
  });
});
