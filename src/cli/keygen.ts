// `warpgate keygen --out FILE`: a new BLS secret key in avalanchego's signer.key format (the raw
// 32-byte scalar), written with mode 0600; prints the public key and its proof of possession,
// which is what a validator registration needs.
import { openSync, writeSync, closeSync } from 'node:fs';
import { loadBackend, nobleBackend } from '../bls/index.js';
import { bytesTo0xHex } from '../warp/hex.js';
import { parseArgs, stringOption, UsageError } from './args.js';

export async function run(argv: string[]): Promise<number> {
  const { options } = parseArgs(argv, { out: { type: 'string', short: 'o' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 'keygen');
  if (options.help) {
    process.stdout.write('usage: warpgate keygen --out FILE [--force]\n  writes a raw 32-byte BLS signer.key (mode 0600) and prints its public key and proof of possession\n');
    return 0;
  }
  const out = stringOption(options.out);
  if (!out) throw new UsageError('keygen: --out FILE is required');
  const bls = loadBackend();
  const sk = bls.generateSecretKey();
  let fd: number;
  try {
    // 'wx' refuses to overwrite an existing key: losing a validator key is not undoable.
    fd = openSync(out, options.force ? 'w' : 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'EEXIST' ? `${out} already exists (pass --force to overwrite it)` : `cannot write ${out}: ${code ?? String(err)}`);
  }
  try {
    writeSync(fd, sk.bytes);
  } finally {
    closeSync(fd);
  }
  const noble = nobleBackend();
  const nsk = noble.secretKeyFromBytes(sk.bytes);
  const pk = noble.publicKeyOf(nsk);
  const pop = noble.signProofOfPossession(nsk);
  process.stdout.write(`${JSON.stringify({ keyFile: out, publicKey: bytesTo0xHex(pk.bytes), proofOfPossession: bytesTo0xHex(pop.bytes) }, null, 2)}\n`);
  return 0;
}
