// `warpgate verify --message <signed hex> --validators <file> [--quorum 67] [--network-id N]
// [--backend blst|noble]`: checks a signed Warp message against a validator set saved from the
// P-Chain and prints the result as JSON. Exit 0 when valid, 1 when not, 1 with one stderr line
// when an input cannot be read, 2 for a usage mistake.
import { readFile, stat } from 'node:fs/promises';
import { loadBackend } from '../bls/index.js';
import type { BackendName } from '../bls/types.js';
import { canonicalSet } from '../validators/canonical-set.js';
import { ValidatorSetError } from '../validators/errors.js';
import { ValidatorResultError } from '../node/errors.js';
import { parseJsonLossless } from '../node/json.js';
import { parseValidatorsFile } from '../node/pchain-results.js';
import { DEFAULT_QUORUM_PERCENTAGE } from '../validators/quorum.js';
import { verifySignedMessage } from '../validators/verify.js';
import { WarpFormatError } from '../warp/errors.js';
import { hexToBytes } from '../warp/hex.js';
import { intOption, parseArgs, UsageError } from './args.js';

const USAGE = `usage: warpgate verify --message <signed message hex> --validators <file>
                      [--quorum 67] [--network-id N] [--backend blst|noble]

Verifies a signed Warp message against a validator set. The file holds the "result" of
platform.getValidatorsAt (either shape) or of platform.getCurrentValidators (a whole JSON-RPC
response carrying one is accepted too). Prints {valid, signedWeight, totalWeight, signers,
reason}; exits 0 when valid, 1 when not.

  --message      the signed message as hex (0x optional)
  --validators   path of the validator set JSON file
  --quorum       percentage of the total weight that must have signed (integer 0-100, default 67)
  --network-id   also require this network ID (1 mainnet, 5 fuji, 12345 local)
  --backend      BLS implementation: blst (default) or noble
`;

/** Far above mainnet's full getCurrentValidators answer (~2 MiB). */
const MAX_VALIDATORS_FILE_BYTES = 64 * 1024 * 1024;

/** An input that cannot be read: reported as one stderr line, exit 1. */
class InputError extends Error {}

async function readValidatorsFile(path: string) {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new InputError(`${path} is not a file`);
    if (info.size > MAX_VALIDATORS_FILE_BYTES) throw new InputError(`${path} is larger than ${MAX_VALIDATORS_FILE_BYTES} bytes`);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read validators file ${path}${code ? ` (${code})` : ''}`);
  }
  let json: unknown;
  try {
    json = parseJsonLossless(text);
  } catch (err) {
    throw new InputError(`validators file ${path} is not JSON: ${(err as Error).message}`);
  }
  try {
    return parseValidatorsFile(json);
  } catch (err) {
    if (err instanceof ValidatorResultError) throw new InputError(`validators file ${path}: ${err.message}`);
    throw err;
  }
}

function backendOption(value: string | undefined): BackendName | undefined {
  if (value === undefined) return undefined;
  if (value === 'blst' || value === 'noble') return value;
  throw new UsageError(`verify: --backend must be blst or noble, got '${value}'`);
}

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(
    argv,
    {
      message: { type: 'string' },
      validators: { type: 'string' },
      quorum: { type: 'string' },
      'network-id': { type: 'string' },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    'verify',
  );
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`verify: unexpected argument '${positionals[0]}'; see warpgate verify --help`);
  const messageHex = options.message;
  const validatorsPath = options.validators;
  if (messageHex === undefined || validatorsPath === undefined) {
    throw new UsageError('verify: --message and --validators are required; see warpgate verify --help');
  }
  const quorum = intOption(options.quorum, 'quorum', 0, 100, DEFAULT_QUORUM_PERCENTAGE);
  const networkId =
    options['network-id'] === undefined ? undefined : intOption(options['network-id'], 'network-id', 0, 0xffff_ffff, 0);
  const backendName = backendOption(options.backend);

  try {
    let message: Uint8Array;
    try {
      message = hexToBytes(messageHex.trim(), '--message');
    } catch (err) {
      throw new InputError(err instanceof WarpFormatError ? err.message : String(err));
    }
    const entries = await readValidatorsFile(validatorsPath);
    const bls = loadBackend(backendName);
    let set;
    try {
      set = canonicalSet(entries, bls);
    } catch (err) {
      if (err instanceof ValidatorSetError) throw new InputError(`validators file ${validatorsPath}: ${err.message}`);
      throw err;
    }
    const result = verifySignedMessage(message, set, quorum, networkId, bls);
    const printable = {
      valid: result.valid,
      signedWeight: result.signedWeight.toString(),
      totalWeight: result.totalWeight.toString(),
      signers: result.signers,
      ...(result.reason === undefined ? {} : { reason: result.reason }),
    };
    process.stdout.write(`${JSON.stringify(printable, null, 2)}\n`);
    return result.valid ? 0 : 1;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    process.stderr.write(`warpgate verify: ${err.message.replace(/\s+/g, ' ')}\n`);
    return 1;
  }
}
