// Reading a body with a size cap, so that a misbehaving peer cannot make us buffer without
// bound. Every reader we have keeps its own way of being fed (a fetch answer's web stream here;
// Node streams with their own deadlines and answers in proxy/ and devnet/), and shares the cap:
// the content-length precheck and the counting of chunks (BodyCap).

/** True when a content-length header already announces more than `limit` bytes. */
export function declaredOver(contentLength: string | null | undefined, limit: number): boolean {
  const declared = Number(contentLength ?? NaN);
  return Number.isFinite(declared) && declared > limit;
}

/** The chunks of one body, kept while the body stays within `limit` bytes. */
export class BodyCap {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  constructor(readonly limit: number) {}

  /** Keeps `chunk`; false once the body has gone over the limit (then nothing more is kept). */
  add(chunk: Uint8Array): boolean {
    if (this.size > this.limit) return false;
    this.size += chunk.byteLength;
    if (this.size > this.limit) {
      this.chunks.length = 0;
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  /** The body so far. */
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** A fetch answer's body as text, or null when it exceeds `limit` bytes (the rest is not read). */
export async function readBodyCapped(res: Response, limit: number): Promise<string | null> {
  if (declaredOver(res.headers.get('content-length'), limit)) {
    await res.body?.cancel();
    return null;
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const body = new BodyCap(limit);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!body.add(value)) {
      await reader.cancel();
      return null;
    }
  }
  return body.bytes().toString('utf8');
}
