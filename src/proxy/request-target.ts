// The request line as the client sent it: the path and query are forwarded byte for byte, with
// only the characters that may not appear on a request line percent-encoded, so the upstream
// decodes exactly the values the client meant. Validation reads decoded values from here too.

interface RequestTarget {
  /** The raw path, e.g. `/v1/chains/43114/transactions`. */
  pathname: string;
  /** The raw query without `?`, or undefined when there is no `?`. */
  rawQuery: string | undefined;
}

export function splitTarget(url: string): RequestTarget {
  const q = url.indexOf('?');
  return q === -1 ? { pathname: url, rawQuery: undefined } : { pathname: url.slice(0, q), rawQuery: url.slice(q + 1) };
}

// RFC 3986 pchar / query characters plus '%' (handled separately). Everything else is encoded.
const LINE_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

/**
 * `url` with every character that is not allowed on a request line percent-encoded. Existing
 * `%XX` escapes stay as they are; a `%` that starts no escape becomes `%25`. Node hands us bytes
 * outside ASCII as latin1 characters, so those are encoded as the single byte they were.
 */
export function faithfulTarget(url: string): string {
  let out = '';
  for (let i = 0; i < url.length; i++) {
    const ch = url[i] as string;
    if (ch === '%') {
      out += /^[0-9A-Fa-f]{2}$/.test(url.slice(i + 1, i + 3)) ? '%' : '%25';
    } else if (LINE_SAFE.test(ch)) {
      out += ch;
    } else {
      const code = ch.charCodeAt(0);
      out += code < 256 ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : encodeURIComponent(ch);
    }
  }
  return out;
}

/** Decoded query parameters in the order given; repeated names keep every value. */
export class QueryParams {
  private readonly values = new Map<string, string[]>();

  static parse(rawQuery: string | undefined): QueryParams {
    const params = new QueryParams();
    if (rawQuery === undefined || rawQuery === '') return params;
    for (const part of rawQuery.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = decodeComponent(eq === -1 ? part : part.slice(0, eq));
      const value = eq === -1 ? '' : decodeComponent(part.slice(eq + 1));
      const list = params.values.get(name);
      if (list) list.push(value);
      else params.values.set(name, [value]);
    }
    return params;
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  getAll(name: string): string[] {
    return this.values.get(name) ?? [];
  }

  names(): string[] {
    return [...this.values.keys()];
  }
}

// Query strings use '+' for a space (HTML form encoding), as the Data API's own server reads
// them; a malformed escape is kept as written (as node's querystring does), so it fails the
// rules of a named parameter and passes through untouched in any other.
function decodeComponent(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
