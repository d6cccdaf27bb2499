// `warpgate keygen --staking` and `warpgate identity` through the real binary. The NodeID is
// cross-checked with node:crypto and openssl, the BLS key with the native backend.
import { spawn, execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { loadBackend, nobleBackend } from '../../src/bls/index.js';
import { hexToBytes } from '../../src/warp/hex.js';
import { selfSignedCertificatePem } from '../../src/p2p/index.js';
import { WARPGATE } from '../source-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function warpgate(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...WARPGATE, ...args], { cwd: root, timeout: 20_000, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function nodeIdOfDer(der: Buffer): string {
  const id = createHash('ripemd160').update(createHash('sha256').update(der).digest()).digest();
  return `NodeID-${bs58.encode(Buffer.concat([id, createHash('sha256').update(id).digest().subarray(-4)]))}`;
}

describe('warpgate keygen --staking', () => {
  it('writes staker.crt and staker.key readable by their owner only, and prints the NodeID', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'wg-staking-')), 'staking');
    const r = await warpgate(['keygen', '--staking', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(statSync(join(dir, 'staker.key')).mode & 0o777).toBe(0o400);
    expect(statSync(join(dir, 'staker.crt')).mode & 0o777).toBe(0o400);
    expect(readFileSync(join(dir, 'staker.key'), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    // openssl's DER of the certificate gives the same NodeID
    const der = execFileSync('openssl', ['x509', '-in', join(dir, 'staker.crt'), '-outform', 'DER']);
    expect(out.nodeId).toBe(nodeIdOfDer(der));
    const pub = execFileSync('openssl', ['x509', '-in', join(dir, 'staker.crt'), '-noout', '-text']).toString();
    expect(pub).toMatch(/NIST CURVE: P-256/);
  });

  it('never overwrites an existing key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wg-staking-'));
    expect((await warpgate(['keygen', '--staking', dir])).code).toBe(0);
    const before = readFileSync(join(dir, 'staker.key'), 'utf8');
    const again = await warpgate(['keygen', '--staking', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists; an existing staking key is never overwritten/);
    expect(readFileSync(join(dir, 'staker.key'), 'utf8')).toBe(before);
    expect((await warpgate(['keygen', '--staking', dir, '--force'])).code).toBe(2);
  });
});

describe('warpgate identity', () => {
  it('prints nodeId, blsPublicKey and blsProofOfPossession for a certificate and a signer.key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wg-id-'));
    expect((await warpgate(['keygen', '--staking', dir])).code).toBe(0);
    const keyFile = join(dir, 'signer.key');
    expect((await warpgate(['keygen', '--out', keyFile])).code).toBe(0);
    const r = await warpgate(['identity', '--tls-cert', join(dir, 'staker.crt'), '--bls-key', keyFile]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(['blsProofOfPossession', 'blsPublicKey', 'nodeId']);
    expect(out.nodeId).toBe(nodeIdOfDer(execFileSync('openssl', ['x509', '-in', join(dir, 'staker.crt'), '-outform', 'DER'])));
    const blst = loadBackend('blst');
    const sk = blst.secretKeyFromBytes(readFileSync(keyFile));
    expect(out.blsPublicKey).toBe(`0x${Buffer.from(blst.publicKeyOf(sk).bytes).toString('hex')}`);
    const noble = nobleBackend();
    expect(noble.verifyProofOfPossession(noble.publicKeyFromBytes(hexToBytes(out.blsPublicKey)), noble.signatureFromBytes(hexToBytes(out.blsProofOfPossession)))).toBe(true);
    const onlyCert = JSON.parse((await warpgate(['identity', '--tls-cert', join(dir, 'staker.crt')])).stdout);
    expect(onlyCert).toEqual({ nodeId: out.nodeId });
  });

  it('works for an RSA-4096 certificate like avalanchego’s local stakers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wg-id-'));
    const pem = selfSignedCertificatePem(generateKeyPairSync('rsa', { modulusLength: 4096 }).privateKey);
    writeFileSync(join(dir, 'staker.crt'), pem);
    const r = await warpgate(['identity', '--tls-cert', join(dir, 'staker.crt')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).nodeId).toBe(nodeIdOfDer(execFileSync('openssl', ['x509', '-in', join(dir, 'staker.crt'), '-outform', 'DER'])));
  });

  it('refuses a certificate avalanchego refuses, a missing file, and no arguments', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wg-id-'));
    writeFileSync(join(dir, 'p384.crt'), selfSignedCertificatePem(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey));
    const bad = await warpgate(['identity', '--tls-cert', join(dir, 'p384.crt')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/elliptic curve point/);
    expect((await warpgate(['identity', '--tls-cert', join(dir, 'missing.crt')])).stderr).toMatch(/cannot read .*ENOENT/);
    expect((await warpgate(['identity'])).code).toBe(2);
  });
});
