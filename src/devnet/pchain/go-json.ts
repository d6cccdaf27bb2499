// JSON written the way Go's encoding/json writes avalanchego's results: plain uint64 fields are
// JSON numbers with every digit (kept as bigint here, beyond 2^53), and absent fields are left out.
/**
 * JSON text of `value`, where a bigint is written as a JSON number with all its digits (Go writes
 * plain uint64 fields that way, beyond 2^53), `undefined` object fields are left out, and
 * Uint8Array is not special (callers convert bytes themselves, as each field has its own format).
 */
export function stringifyJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push('null');
  } else if (typeof value === 'bigint') {
    out.push(value.toString());
  } else if (typeof value === 'string' || typeof value === 'boolean') {
    out.push(JSON.stringify(value));
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`stringifyJson: ${value} has no JSON form`);
    out.push(JSON.stringify(value));
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, i) => {
      if (i > 0) out.push(',');
      write(item, out);
    });
    out.push(']');
  } else if (value instanceof Uint8Array) {
    throw new TypeError('stringifyJson: encode bytes explicitly (hex, cb58 or a number array)');
  } else if (typeof value === 'object') {
    out.push('{');
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(item, out);
    }
    out.push('}');
  } else {
    throw new TypeError(`stringifyJson: ${typeof value} has no JSON form`);
  }
}
