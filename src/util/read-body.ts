// Reading an HTTP answer's body with a size cap, shared by every client we have (P-Chain client,
// L1 message builder, signer node calls): a misbehaving upstream must not make us buffer
// without bound.

/** The body as text, or null when it exceeds `limit` bytes (the rest is not read). */
export async function readBodyCapped(res: Response, limit: number): Promise<string | null> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel();
    return null;
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
