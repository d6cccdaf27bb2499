// Reading numbers from a node's JSON without losing any. JSON.parse turns every number into a
// float64, so a uint64 such as a weight or a balance above 2^53 would silently change value.
// avalanchego prints uint64 fields as decimal strings, but some results (platform.getTx with
// encoding "json", older getValidatorsAt docs) carry plain JSON numbers. Rather than a full parser
// of our own, we rewrite every integer literal that a float64 cannot hold exactly into a decimal
// string before JSON.parse: readers of node results accept uint64s as strings (readUint64), so
// large values arrive intact and small ones unchanged.

function isNumberChar(c: number): boolean {
  // 0-9 . + - e E
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x65 || c === 0x45;
}

const INTEGER_RE = /^-?\d+$/;

/** `text` with every integer literal outside the float64-exact range turned into a string. */
export function quoteUnsafeIntegers(text: string): string {
  let out = '';
  let copiedUpTo = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string literal, escapes included, so digits inside strings are left alone.
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) {
          i++;
          break;
        } else i++;
      }
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i++;
      while (i < n && isNumberChar(text.charCodeAt(i))) i++;
      const token = text.slice(start, i);
      if (INTEGER_RE.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(copiedUpTo, start)}"${token}"`;
        copiedUpTo = i;
      }
      continue;
    }
    i++;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

/** JSON.parse that keeps integers beyond 2^53 exact, as decimal strings. Throws SyntaxError. */
export function parseJsonLossless(text: string): unknown {
  return JSON.parse(quoteUnsafeIntegers(text));
}

const MAX_UINT64 = (1n << 64n) - 1n;

/**
 * A uint64 as avalanchego writes one: a decimal string (json.Uint64), a JSON number (older docs,
 * getTx with encoding "json"; it must be a safe integer, else precision was already lost) or a
 * bigint. Undefined for anything else, including values beyond 2^64-1, so that each caller says
 * in its own error which field of which answer was wrong.
 */
export function readUint64(value: unknown): bigint | undefined {
  let n: bigint | undefined;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'string' && /^\d{1,20}$/.test(value)) n = BigInt(value);
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  return n !== undefined && n >= 0n && n <= MAX_UINT64 ? n : undefined;
}
