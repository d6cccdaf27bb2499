// `warpgate identity [--tls-cert FILE] [--bls-key FILE]`: one JSON line with the NodeID of a
// staking certificate (RIPEMD-160(SHA-256(DER)), refused if avalanchego would refuse the
// certificate) and the BLS public key and proof of possession of a signer.key, for what was
// given. This is what an operator pins in a subnet's allowedNodes or registers as a validator.
import { readFileSync } from 'node:fs';
import { nobleBackend } from '../bls/index.js';
import { bytesTo0xHex } from '../warp/hex.js';
import { certificateDerFromPem, parseStakingCertificate } from '../p2p/index.js';
import { readSignerKey, secretKeyFromFile } from '../signer/key-file.js';
import { parseArgs, UsageError } from './args.js';

export async function run(argv: string[]): Promise<number> {
  const { options } = parseArgs(argv, { 'tls-cert': { type: 'string' }, 'bls-key': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'identity');
  if (options.help) {
    process.stdout.write(
      'usage: warpgate identity [--tls-cert FILE] [--bls-key FILE]\n' +
        '  prints {"nodeId", "blsPublicKey", "blsProofOfPossession"} for a staker.crt and/or a signer.key\n',
    );
    return 0;
  }
  const certFile = options['tls-cert'];
  const keyFile = options['bls-key'];
  if (certFile === undefined && keyFile === undefined) throw new UsageError('identity: give --tls-cert FILE, --bls-key FILE or both');
  const out: Record<string, string> = {};
  if (certFile !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(certFile, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${certFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    try {
      out.nodeId = parseStakingCertificate(certificateDerFromPem(pem)).nodeId;
    } catch (err) {
      throw new Error(`${certFile}: ${(err as Error).message}`);
    }
  }
  if (keyFile !== undefined) {
    const noble = nobleBackend();
    const sk = secretKeyFromFile(noble, await readSignerKey(keyFile), keyFile);
    out.blsPublicKey = bytesTo0xHex(noble.publicKeyOf(sk).bytes);
    out.blsProofOfPossession = bytesTo0xHex(noble.signProofOfPossession(sk).bytes);
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
  return 0;
}
