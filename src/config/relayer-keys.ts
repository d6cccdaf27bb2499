// The relayer's delivery keys, read from where relayer.keys says (a file or an environment
// variable) when the relayer starts. A key that is not there or is not a private key is a static
// mistake: a ConfigError naming the entry (`relayer.keys[1]: …`), so the CLI exits 2 before
// anything runs. Problems never quote a key's text, and a loaded key hides its secret from
// JSON.stringify, util.inspect and pino alike: only its address shows.
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { privateKeyToAddress } from 'viem/accounts';
import { ConfigError, type Config } from './config.js';

/** secp256k1's group order: a private key is in [1, n). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** One delivery key: its address for anyone to see, its secret only for the signer. */
export class RelayerKey {
  readonly #secret: `0x${string}`;
  constructor(
    readonly address: `0x${string}`,
    secret: `0x${string}`,
    /** Where it came from, e.g. `env RELAYER_KEY` (for messages; never the value). */
    readonly source: string,
  ) {
    this.#secret = secret;
  }

  /** The private key, for the transaction signer and nothing else. */
  privateKey(): `0x${string}` {
    return this.#secret;
  }

  toJSON(): { address: string; source: string } {
    return { address: this.address, source: this.source };
  }

  [inspect.custom](): string {
    return `RelayerKey(${this.address}, ${this.source})`;
  }
}

/** Why `text` is not a private key, or the key as 0x + 64 lower-case hex digits. Never echoes the text. */
function parsePrivateKey(text: string): `0x${string}` | { problem: string } {
  const trimmed = text.trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(trimmed)) return { problem: 'does not hold a private key (64 hex digits, 0x optional)' };
  const hex = `0x${trimmed.replace(/^0x/i, '').toLowerCase()}` as const;
  const n = BigInt(hex);
  if (n === 0n || n >= SECP256K1_N) return { problem: 'holds a value that is not a secp256k1 private key' };
  return hex;
}

/** Reads every key of relayer.keys; throws one ConfigError listing every problem. */
export function loadRelayerKeys(relayer: Config['relayer'], env: NodeJS.ProcessEnv = process.env): RelayerKey[] {
  const problems: string[] = [];
  const keys: RelayerKey[] = [];
  const seen = new Map<string, number>();
  relayer.keys.forEach((entry, i) => {
    const at = `relayer.keys[${i}]`;
    let text: string;
    let source: string;
    if (entry.file !== undefined) {
      source = `file ${entry.file}`;
      try {
        text = readFileSync(entry.file, 'utf8');
      } catch (err) {
        problems.push(`${at}: the key file ${entry.file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
        return;
      }
    } else {
      source = `env ${entry.env!}`;
      const value = env[entry.env!];
      if (value === undefined || value === '') {
        problems.push(`${at}: the environment variable ${entry.env!} is not set`);
        return;
      }
      text = value;
    }
    const parsed = parsePrivateKey(text);
    if (typeof parsed !== 'string') {
      problems.push(`${at}: ${source} ${parsed.problem}`);
      return;
    }
    const address = privateKeyToAddress(parsed).toLowerCase() as `0x${string}`;
    const earlier = seen.get(address);
    // Two entries with one key would share a nonce sequence and race each other.
    if (earlier !== undefined) {
      problems.push(`${at}: the same key as relayer.keys[${earlier}] (${address})`);
      return;
    }
    seen.set(address, i);
    keys.push(new RelayerKey(address, parsed, source));
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return keys;
}
