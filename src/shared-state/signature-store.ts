// The shared signature cache: signatures proven valid, by (message ID, BLS public key), in one
// Redis hash per message (`sig:v1:<message ID>`, field: the public key's hex). Every value starts
// with a format byte, and the key names the format's version too, so a replica of another
// version never reads an entry it would misunderstand. Each hash expires signatureCache.ttlMs
// after its last write; its fields are bounded by the validator set (only its signatures are
// written). What a replica reads is checked like any cached signature (the aggregate check, a
// bisection when it fails): an entry that fails is deleted and its validator is never penalised.
// Here only the shape is checked: a value that cannot be a signature is deleted at once.
import type { SharedConnection } from './connection.js';
import type { SharedStateEvents } from './events.js';

/** The format byte of an entry: a BLS signature as received (compressed 96 or uncompressed 192 bytes). */
const FORMAT_V1 = 0x01;
const SIGNATURE_LENGTHS = new Set([96, 192]);

export class SharedSignatureStore {
  constructor(
    private readonly conn: SharedConnection,
    private readonly ttlMs: number,
    private readonly events: SharedStateEvents = {},
  ) {}

  private keyOf(messageIdHex: string): string {
    return this.conn.key(`sig:v1:${messageIdHex}`);
  }

  /** The signatures replicas proved for this message, by public-key hex; empty when none or Redis is unavailable. Never rejects. */
  async read(messageIdHex: string): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    if (!this.conn.up) {
      this.events.onFallback?.('signatures');
      return out;
    }
    let entries: Record<string, Buffer>;
    try {
      entries = await this.conn.run('hgetall', (c) => c.hgetallBuffer(this.keyOf(messageIdHex)));
    } catch {
      this.events.onFallback?.('signatures');
      return out;
    }
    const malformed: string[] = [];
    for (const [field, value] of Object.entries(entries)) {
      const sig = decodeEntry(field, value);
      if (sig) out.set(field, sig);
      else malformed.push(field);
    }
    if (malformed.length > 0) {
      this.events.onSharedCache?.('invalid', malformed.length);
      void this.conn.run('hdel', (c) => c.hdel(this.keyOf(messageIdHex), ...malformed)).catch(() => undefined);
    }
    this.events.onSharedCache?.(out.size > 0 ? 'hit' : 'miss');
    return out;
  }

  /** Adds signatures proven valid; resolves once written (or given up). Never rejects. */
  async write(messageIdHex: string, sigs: ReadonlyMap<string, Uint8Array>): Promise<void> {
    if (sigs.size === 0) return;
    if (!this.conn.up) return void this.events.onFallback?.('signatures');
    const fields: Record<string, Buffer> = {};
    for (const [pkHex, sig] of sigs) fields[pkHex] = Buffer.concat([Buffer.of(FORMAT_V1), sig]);
    const key = this.keyOf(messageIdHex);
    try {
      await this.conn.run('hset+pexpire', (c) => c.multi().hset(key, fields).pexpire(key, this.ttlMs).exec());
    } catch {
      this.events.onFallback?.('signatures');
    }
  }

  /** Deletes one entry that failed its check. */
  remove(messageIdHex: string, pkHex: string): void {
    this.events.onSharedCache?.('invalid');
    void this.conn.run('hdel', (c) => c.hdel(this.keyOf(messageIdHex), pkHex)).catch(() => undefined);
  }
}

/** The signature an entry holds, or null when it cannot be one (another format, a wrong length, a field that is no key). */
function decodeEntry(field: string, value: Buffer): Uint8Array | null {
  if (!/^[0-9a-f]{96}$/.test(field)) return null;
  if (value.length < 1 || value[0] !== FORMAT_V1 || !SIGNATURE_LENGTHS.has(value.length - 1)) return null;
  return new Uint8Array(value.subarray(1));
}
