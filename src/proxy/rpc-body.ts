// Parsing a JSON-RPC body while keeping each call's original text, so what goes upstream is
// byte for byte what the client sent (JSON numbers above 2^53 in ids or params survive).

type RpcBody =
  | { kind: 'unparseable'; detail: string }
  | { kind: 'single'; value: unknown; raw: Buffer }
  | { kind: 'batch'; items: Array<{ value: unknown; raw: string }> };

export function parseRpcBody(body: Buffer): RpcBody {
  const text = body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = text.trim() === '' ? 'unexpected end of JSON input' : `invalid JSON: ${err instanceof Error ? err.message : String(err)}`;
    return { kind: 'unparseable', detail };
  }
  if (!Array.isArray(value)) return { kind: 'single', value, raw: body };
  const raws = splitTopLevelArray(text);
  return { kind: 'batch', items: value.map((v: unknown, i) => ({ value: v, raw: raws[i] ?? JSON.stringify(v) })) };
}

/** The source text of each element of a JSON array (the text is known to be valid JSON). */
export function splitTopLevelArray(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) start = i + 1;
    } else if (c === ']' || c === '}') {
      if (depth === 1) {
        const last = text.slice(start, i).trim();
        if (last !== '') out.push(last);
      }
      depth--;
    } else if (c === ',' && depth === 1) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  return out;
}
