// Command-line options through node:util's parseArgs: every command declares its options, and an
// unknown option, a missing value or a value given to a flag is a usage error (exit 2) rather
// than something silently ignored. parseArgs splits the arguments into tokens; the checks here
// word the errors as warpgate always has, and look option names up as own keys only.
import { parseArgs as parseTokens } from 'node:util';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `string` takes a value (`multiple`: and may repeat); `boolean` is a flag. */
type OptionSpec = { type: 'string'; short?: string; multiple?: boolean } | { type: 'boolean'; short?: string };

type OptionValues<S extends Record<string, OptionSpec>> = {
  [K in keyof S]?: S[K] extends { type: 'boolean' } ? boolean : S[K] extends { multiple: true } ? string[] : string;
};

export interface ParsedArgs<S extends Record<string, OptionSpec>> {
  options: OptionValues<S>;
  positionals: string[];
}

export function parseArgs<const S extends Record<string, OptionSpec>>(argv: string[], spec: S, command: string): ParsedArgs<S> {
  // Not strict: parseArgs would refuse `--seed -x` as ambiguous, where a value is a value.
  const { tokens, positionals } = parseTokens({ args: argv, options: spec, strict: false, allowPositionals: true, tokens: true });
  const options: Record<string, string | boolean | string[]> = {};
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    // Short options stand alone (-h, -o FILE): `-ho` or `-ofile` is not an option of ours.
    const arg = argv[token.index]!;
    if (!arg.startsWith('--') && arg.length > 2) throw new UsageError(`${command}: unknown option ${arg}`);
    // Own keys only: `--constructor` or `--__proto__` is an unknown option, not Object.prototype's.
    const option = Object.hasOwn(spec, token.name) ? spec[token.name] : undefined;
    if (!option) throw new UsageError(`${command}: unknown option ${token.rawName}`);
    if (option.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${command}: --${token.name} takes no value`);
      options[token.name] = true;
      continue;
    }
    if (token.value === undefined) throw new UsageError(`${command}: --${token.name} needs a value`);
    const previous = options[token.name];
    options[token.name] = option.multiple ? [...(Array.isArray(previous) ? previous : []), token.value] : token.value;
  }
  // Every value now has the type its option declares.
  return { options: options as OptionValues<S>, positionals };
}

/** An integer option within [min, max], or the default when absent. */
export function intOption(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${value}'`);
  }
  return n;
}
