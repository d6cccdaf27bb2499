// `warpgate decode <hex | ->`: prints a signed or unsigned Warp message (or SendWarpMessage log
// data) as pretty JSON, decoded down to the AddressedCall and its L1 or Teleporter message fields.
import { describeWarpMessage } from '../warp/describe.js';
import { WarpFormatError } from '../warp/errors.js';
import { hexToBytes } from '../warp/hex.js';
import { unwrapSendWarpMessageLogData } from '../warp/message-input.js';
import { parseArgs, UsageError } from './args.js';

const USAGE = `usage: warpgate decode <hex>
       warpgate decode -        (read the hex from stdin)

Decodes a signed or unsigned Warp message, or the data of a SendWarpMessage log, and prints JSON:
ids in hex and cb58, the messageID, signer indices, the payload and any L1 or Teleporter
message in it (uint256 values as decimal strings).
`;

/** A message is at most ~24 KiB; its hex, with whitespace, stays far below this. */
const MAX_STDIN_BYTES = 1024 * 1024;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_STDIN_BYTES) throw new UsageError(`decode: stdin is larger than ${MAX_STDIN_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, { help: { type: 'boolean', short: 'h' } }, 'decode');
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('decode: expected one argument, the message hex (or - to read it from stdin); see warpgate decode --help');
  const arg = positionals[0]!;
  const text = (arg === '-' ? await readStdin() : arg).trim();
  try {
    const bytes = hexToBytes(text, 'message');
    if (bytes.length === 0) throw new WarpFormatError('message', 'is empty');
    const description = describeWarpMessage(unwrapSendWarpMessageLogData(bytes) ?? bytes);
    process.stdout.write(`${JSON.stringify(description, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof WarpFormatError)) throw err;
    // Exactly one line: the error names the field and byte offset.
    process.stderr.write(`warpgate decode: ${err.message.replace(/\s+/g, ' ')}\n`);
    return 1;
  }
}
