// The kinds of value the `relayer` section holds (docs/relayer.md): the chains it watches and
// delivers to, the routes between them, and where its private keys are. A key's value never
// appears in the config itself: only the file or environment variable that holds it, read when
// the relayer starts (config/relayer-keys.ts), so a config dump cannot leak one.
import { z } from 'zod';
import { cb58IdProblem } from './cb58-check.js';
import { fromJsonEnv, kind, problem, url } from './kinds.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Why `text` is not a 20-byte EVM address (0x and 40 hex digits), or undefined. */
function addressProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'must be an address (0x and 40 hex digits)';
  return ADDRESS.test(text) ? undefined : `'${text.slice(0, 100)}' is not an address (0x and 40 hex digits)`;
}

/** An EVM address, kept lower case: `0x…` (20 bytes). */
function addressSchema() {
  return z
    .string({ error: 'must be an address (0x and 40 hex digits)' })
    .check((ctx) => {
      const why = addressProblem(ctx.value);
      if (why !== undefined) ctx.issues.push(problem(why, ctx.value));
    })
    .transform((a) => a.toLowerCase() as `0x${string}`);
}

/** An address or null (the relayer's reward address: null pays the delivering key). */
export function optionalAddress() {
  return kind(addressSchema().nullable(), 'address (0x…) or null', (raw) => (raw === '' ? null : raw));
}

function cb58Id() {
  return z.string({ error: 'must be a cb58 blockchain ID' }).check((ctx) => {
    const why = cb58IdProblem(ctx.value);
    if (why !== undefined) ctx.issues.push(problem(why, ctx.value));
  });
}

const unknownKey = { error: (iss: z.core.$ZodRawIssue) => (iss.code === 'unrecognized_keys' ? `unknown key '${String((iss as { keys: string[] }).keys[0])}'` : undefined) };

/** An entry that is not an object is read as an empty one, so its problems name the missing fields. */
function entryOf<S extends z.ZodType>(schema: S) {
  return z.preprocess((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}), schema);
}

/**
 * The chains the relayer reads and delivers to: `[{"blockchainId", "rpcUrl", "wsUrl",
 * "teleporterAddress"}]`. `rpcUrl` is the chain's JSON-RPC endpoint (…/ext/bc/{id}/rpc; a
 * provider's key may sit in its query), `wsUrl` its WebSocket one (live logs; without it the
 * source polls), `teleporterAddress` the TeleporterMessenger on it.
 */
export function relayerChainList() {
  const chain = z.strictObject(
    {
      blockchainId: cb58Id(),
      rpcUrl: url({ protocols: ['http:', 'https:'], query: true, credentials: false }),
      wsUrl: url({ protocols: ['ws:', 'wss:'], query: true, credentials: false }).optional(),
      teleporterAddress: addressSchema(),
    },
    unknownKey,
  );
  const schema = z.array(entryOf(chain), { error: 'must be a list of {"blockchainId", "rpcUrl", "wsUrl", "teleporterAddress"}' }).check((ctx) => {
    const seen = new Set<string>();
    ctx.value.forEach((c, i) => {
      if (seen.has(c.blockchainId)) ctx.issues.push({ ...problem(`blockchainId ${c.blockchainId} is listed twice`, ctx.value), path: [i, 'blockchainId'] });
      seen.add(c.blockchainId);
    });
  });
  return {
    schema,
    type: 'list of `{"blockchainId", "rpcUrl", "wsUrl", "teleporterAddress"}`',
    fromEnv: fromJsonEnv(schema, '[{"blockchainId":"…","rpcUrl":"http://127.0.0.1:9650/ext/bc/C/rpc","teleporterAddress":"0x…"}]'),
  };
}

/** Where a route starts without a checkpoint: the source's head when first seen, or a block number. */
const startHeight = z.union([z.literal('head'), z.int().min(0).max(Number.MAX_SAFE_INTEGER)], { error: 'must be "head" or a block number' });

/** The default cap on a message's requiredGasLimit (a route's maxRequiredGasLimit). */
const DEFAULT_MAX_REQUIRED_GAS_LIMIT = 2_000_000;

/**
 * Routes: `[{"source", "destination", "allowedOriginSenders", "allowedDestinations",
 * "maxRequiredGasLimit", "startHeight"}]`; the allowlists empty (the default) allow any address.
 */
export function relayerRouteList() {
  const route = z.strictObject(
    {
      source: cb58Id(),
      destination: cb58Id(),
      allowedOriginSenders: z.array(addressSchema(), { error: 'must be a list of addresses' }).default([]),
      allowedDestinations: z.array(addressSchema(), { error: 'must be a list of addresses' }).default([]),
      maxRequiredGasLimit: z
        .int({ error: 'must be an integer (gas)' })
        .min(1, { error: 'must be at least 1' })
        .max(1_000_000_000, { error: 'must be at most 1000000000' })
        .default(DEFAULT_MAX_REQUIRED_GAS_LIMIT),
      startHeight: startHeight.default('head'),
    },
    unknownKey,
  );
  const schema = z.array(entryOf(route), { error: 'must be a list of {"source": "<cb58>", "destination": "<cb58>", …}' }).check((ctx) => {
    const seen = new Set<string>();
    ctx.value.forEach((r, i) => {
      const id = `${r.source}->${r.destination}`;
      if (seen.has(id)) ctx.issues.push({ ...problem(`the route ${id} is listed twice`, ctx.value), path: [i] });
      seen.add(id);
    });
  });
  return {
    schema,
    type: 'list of `{"source", "destination", "allowedOriginSenders", "allowedDestinations", "maxRequiredGasLimit", "startHeight"}`',
    fromEnv: fromJsonEnv(schema, '[{"source":"<cb58>","destination":"<cb58>"}]'),
  };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Where each delivery key is: `[{"file": "/path"}]` (a file holding the hex private key) or
 * `[{"env": "NAME"}]` (an environment variable holding it). Never the key itself.
 */
export function relayerKeyList() {
  const entry = z
    .strictObject(
      {
        file: z.string({ error: 'must be a file path' }).min(1, { error: 'must be a file path' }).optional(),
        env: z
          .string({ error: 'must be an environment variable name' })
          .check((ctx) => {
            if (!ENV_NAME.test(ctx.value)) ctx.issues.push(problem(`'${ctx.value.slice(0, 100)}' is not an environment variable name`, ctx.value));
          })
          .optional(),
      },
      { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown key '${String(iss.keys[0])}' (a key is {"file": "/path"} or {"env": "NAME"}; the key itself never goes in the config)` : undefined) },
    )
    .check((ctx) => {
      if ((ctx.value.file === undefined) === (ctx.value.env === undefined)) ctx.issues.push(problem('must name exactly one of "file" and "env"', ctx.value));
    });
  const schema = z.array(entryOf(entry), { error: 'must be a list of {"file": "/path"} or {"env": "NAME"}' });
  return { schema, type: 'list of `{"file": …}` or `{"env": …}`', fromEnv: fromJsonEnv(schema, '[{"env":"RELAYER_KEY"}]') };
}

/** The manual relay API's bearer token: long enough not to be guessed, or null (the API is off). */
export function optionalToken() {
  const why = 'must be a string of at least 16 characters, or null';
  return kind(z.string({ error: why }).min(16, { error: why }).nullable(), 'secret string (≥ 16 characters) or null', (raw) => (raw === '' ? null : raw));
}
