// The signer's policy file:
//   { "networkId": 12345, "allowedSourceChains": ["<cb58>", …], "confirmWithNode": "http://127.0.0.1:9650",
//     "pchainNode": "http://127.0.0.1:9650" }
// (the last two keys optional). With pchainNode, P-Chain-sourced L1 messages are signed when that
// node's P-Chain state justifies them (PChainPolicy); without it they are refused, and listing the
// P-Chain in allowedSourceChains is an error: a fixed list cannot vouch for a P-Chain message.
// With pchainNode, the P-Chain may be listed (it then means "the P-Chain, as the node checks it").
// Parsed strictly: unknown keys and wrong types are errors naming the key.
import { readFile } from 'node:fs/promises';
import { parseCb58Id } from '../warp/cb58.js';
import { WarpFormatError } from '../warp/errors.js';
import { AllPolicies, NodeConfirmedPolicy, PolicyError, P_CHAIN_NOT_STATIC, StaticPolicy, USE_PCHAIN_NODE, isPChain } from './policy.js';
import type { SigningPolicy } from './types.js';
import { parseNodeUrl } from '../node/url.js';
import { isRecord } from '../util/is-record.js';
import { PChainPolicy } from './pchain-policy.js';

export interface PolicyConfig {
  networkId: number;
  allowedSourceChains: Uint8Array[];
  confirmWithNode?: string;
  pchainNode?: string;
}

const KEYS = new Set(['networkId', 'allowedSourceChains', 'confirmWithNode', 'pchainNode']);

export function parsePolicy(text: string, source = 'policy'): PolicyConfig {
  const bad = (msg: string): PolicyError => new PolicyError(`${source}: ${msg}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw bad(`is not valid JSON (${(err as Error).message})`);
  }
  if (!isRecord(raw)) throw bad('must be a JSON object');
  const obj = raw;
  for (const key of Object.keys(obj)) {
    if (!KEYS.has(key)) throw bad(`unknown key "${key}" (allowed: ${[...KEYS].join(', ')})`);
  }
  const networkId = obj.networkId;
  if (networkId === undefined) throw bad('"networkId" is required');
  if (typeof networkId !== 'number' || !Number.isInteger(networkId) || networkId < 0 || networkId > 0xffff_ffff) {
    throw bad(`"networkId" must be an integer from 0 to 4294967295, got ${JSON.stringify(networkId)}`);
  }
  const chains = obj.allowedSourceChains;
  if (chains === undefined) throw bad('"allowedSourceChains" is required');
  if (!Array.isArray(chains) || chains.length === 0) throw bad('"allowedSourceChains" must be a non-empty array of cb58 chain IDs');
  const allowedSourceChains = (chains as unknown[]).map((c, i) => {
    try {
      return parseCb58Id(c as string, `allowedSourceChains[${i}]`);
    } catch (err) {
      if (err instanceof WarpFormatError) throw bad(`"allowedSourceChains"[${i}] ${err.reason}`);
      throw err;
    }
  });
  const config: PolicyConfig = { networkId: networkId as number, allowedSourceChains };
  for (const key of ['confirmWithNode', 'pchainNode'] as const) {
    if (obj[key] === undefined) continue;
    if (typeof obj[key] !== 'string') throw bad(`"${key}" must be a URL string`);
    try {
      config[key] = parseNodeUrl(obj[key] as string, `"${key}"`);
    } catch (err) {
      throw bad((err as Error).message);
    }
  }
  const pchain = allowedSourceChains.findIndex(isPChain);
  if (pchain !== -1 && !config.pchainNode) throw bad(`"allowedSourceChains"[${pchain}]: ${P_CHAIN_NOT_STATIC}; ${USE_PCHAIN_NODE}`);
  return config;
}

export async function readPolicyFile(path: string): Promise<PolicyConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new PolicyError(`cannot read policy file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parsePolicy(text, `policy file ${path}`);
}

/**
 * The policy a config describes: the static rules, then the node's confirmation if asked for; with
 * pchainNode, P-Chain messages go to PChainPolicy and only they. Throws a PolicyError for a config
 * that lists the P-Chain without pchainNode, however the config was made.
 */
export function policyFromConfig(config: PolicyConfig): SigningPolicy {
  const others = config.allowedSourceChains.filter((c) => !isPChain(c));
  if (!config.pchainNode) {
    if (others.length !== config.allowedSourceChains.length) throw new PolicyError(`${P_CHAIN_NOT_STATIC}; ${USE_PCHAIN_NODE}`);
    return chainsPolicy(config, others);
  }
  const otherChains = others.length > 0 ? chainsPolicy(config, others) : undefined;
  return new PChainPolicy({ networkId: config.networkId, nodeUrl: config.pchainNode, ...(otherChains ? { otherChains } : {}) });
}

function chainsPolicy(config: PolicyConfig, chains: Uint8Array[]): SigningPolicy {
  const rules = new StaticPolicy({ networkId: config.networkId, allowedSourceChains: chains });
  return config.confirmWithNode ? new AllPolicies([rules, new NodeConfirmedPolicy(config.confirmWithNode)]) : rules;
}
