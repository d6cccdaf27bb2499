// A small, strict argument parser: every command declares its options, and an unknown option or
// a missing value is a usage error rather than something silently ignored.

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface OptionSpec {
  /** `string` takes a value; `boolean` is a flag; `multi` takes a value and may repeat. */
  type: 'string' | 'boolean' | 'multi';
  short?: string;
}

export interface ParsedArgs {
  options: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export function parseArgs(argv: string[], spec: Record<string, OptionSpec>, command: string): ParsedArgs {
  const options: ParsedArgs['options'] = {};
  const positionals: string[] = [];
  const byShort = new Map(Object.entries(spec).flatMap(([k, s]) => (s.short ? [[s.short, k] as const] : [])));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
    } else {
      const long = byShort.get(arg.slice(1));
      if (!long) throw new UsageError(`${command}: unknown option ${arg}`);
      name = long;
    }
    // Own keys only: `--constructor` or `--__proto__` is an unknown option, not Object.prototype's.
    const s = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!s) throw new UsageError(`${command}: unknown option --${name}`);
    if (s.type === 'boolean') {
      if (inline !== undefined) throw new UsageError(`${command}: --${name} takes no value`);
      options[name] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`${command}: --${name} needs a value`);
    if (s.type === 'multi') {
      const prev = options[name];
      options[name] = [...(Array.isArray(prev) ? prev : []), value];
    } else {
      options[name] = value;
    }
  }
  return { options, positionals };
}

/** An integer option within [min, max], or the default when absent. */
export function intOption(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${String(value)}'`);
  }
  return n;
}

export function stringOption(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
