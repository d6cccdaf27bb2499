// `warpgate keygen --out FILE`: a new BLS secret key in avalanchego's signer.key format (the raw
// 32-byte scalar), written with mode 0600; prints the public key and its proof of possession,
// which is what a validator registration needs.
// `warpgate keygen --staking DIR`: a new staking certificate and key as avalanchego writes them
// (staking/tls.go InitNodeStakingKeyPair: DIR/staker.crt and DIR/staker.key, ECDSA P-256, both
// read-only for their owner, utils/perms ReadOnly = 0400); prints the NodeID.
import { openSync, writeSync, closeSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadBackend, nobleBackend } from '../bls/index.js';
import { bytesTo0xHex } from '../warp/hex.js';
import { generateStakingCertificate, loadStakingIdentity } from '../p2p/index.js';
import { parseArgs, UsageError } from './args.js';

const USAGE =
  'usage: warpgate keygen --out FILE [--force]\n' +
  '  writes a raw 32-byte BLS signer.key (mode 0600) and prints its public key and proof of possession\n' +
  '       warpgate keygen --staking DIR\n' +
  "  writes DIR/staker.crt and DIR/staker.key (mode 0400) as avalanchego does and prints the NodeID;\n" +
  '  never overwrites an existing key\n';

export async function run(argv: string[]): Promise<number> {
  const { options } = parseArgs(argv, { out: { type: 'string', short: 'o' }, staking: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 'keygen');
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const staking = options.staking;
  const out = options.out;
  if (staking !== undefined) {
    if (out !== undefined || options.force) throw new UsageError('keygen: --staking takes no --out or --force (a staking key is never overwritten)');
    return writeStakingKeyPair(staking);
  }
  if (!out) throw new UsageError('keygen: --out FILE or --staking DIR is required');
  const bls = loadBackend();
  const sk = bls.generateSecretKey();
  writeNewFile(out, sk.bytes, 0o600, options.force === true);
  const noble = nobleBackend();
  const nsk = noble.secretKeyFromBytes(sk.bytes);
  const pk = noble.publicKeyOf(nsk);
  const pop = noble.signProofOfPossession(nsk);
  process.stdout.write(`${JSON.stringify({ keyFile: out, publicKey: bytesTo0xHex(pk.bytes), proofOfPossession: bytesTo0xHex(pop.bytes) }, null, 2)}\n`);
  return 0;
}

function writeStakingKeyPair(dir: string): number {
  const keyFile = join(dir, 'staker.key');
  const certFile = join(dir, 'staker.crt');
  for (const f of [keyFile, certFile]) {
    if (existsSync(f)) throw new Error(`${f} already exists; an existing staking key is never overwritten (its NodeID would change)`);
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
  } catch (err) {
    throw new Error(`cannot create ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const { certPem, keyPem } = generateStakingCertificate();
  const identity = loadStakingIdentity(certPem, keyPem);
  writeNewFile(keyFile, Buffer.from(keyPem), 0o400, false);
  writeNewFile(certFile, Buffer.from(certPem), 0o400, false);
  process.stdout.write(`${JSON.stringify({ nodeId: identity.nodeId, certFile, keyFile })}\n`);
  return 0;
}

function writeNewFile(path: string, bytes: Uint8Array, mode: number, overwrite: boolean): void {
  let fd: number;
  try {
    // 'wx' refuses to overwrite an existing key: losing a validator key is not undoable.
    fd = openSync(path, overwrite ? 'w' : 'wx', mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'EEXIST' ? `${path} already exists (pass --force to overwrite it)` : `cannot write ${path}: ${code ?? String(err)}`);
  }
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}
