// Compiles the interop network's Solidity contracts (interop/contracts/*.sol) offline with npm's
// solc (its WASM build: nothing is downloaded) into interop/.build/contracts/<Contract>.json
// ({ contractName, abi, bytecode, deployedBytecode, solcVersion, sourceHash }). The output is
// cached by a hash of the sources, the compiler version and the settings, so a second run is
// instant; nothing compiled is committed. interop/build.sh runs it; the harness deploys the
// bytecode and the interop tests read the ABIs.
//
//   node --import tsx interop/contracts/compile.ts [outDir]
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTRACTS_DIR = fileURLToPath(new URL('.', import.meta.url)).replace(/\/$/, '');
export const DEFAULT_OUT_DIR = resolve(CONTRACTS_DIR, '../.build/contracts');
/** The contracts deployed on the network (the others are only imported). */
export const DEPLOYED = ['TeleporterMessengerCompatible', 'ReceiverForTests'] as const;
export type DeployedContract = (typeof DEPLOYED)[number];

export interface Artifact {
  contractName: string;
  abi: unknown[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
  solcVersion: string;
  sourceHash: string;
}

// paris: no PUSH0 or MCOPY, so the bytecode runs on any EVM chain of this era whatever its
// upgrades; the optimizer keeps delivery gas close to a production build's.
const SETTINGS = {
  evmVersion: 'paris',
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};

interface Solc {
  version(): string;
  compile(input: string, callbacks?: { import(path: string): { contents: string } | { error: string } }): string;
}

function loadSolc(): Solc {
  try {
    return createRequire(import.meta.url)('solc') as Solc;
  } catch (err) {
    throw new Error(`npm's solc is not installed (run npm ci): ${(err as Error).message}`);
  }
}

function sources(): Record<string, { content: string }> {
  const out: Record<string, { content: string }> = {};
  for (const name of readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.sol')).sort()) {
    out[name] = { content: readFileSync(join(CONTRACTS_DIR, name), 'utf8') };
  }
  return out;
}

function hashOf(solcVersion: string, input: Record<string, { content: string }>): string {
  const hash = createHash('sha256').update(solcVersion).update(JSON.stringify(SETTINGS));
  for (const [name, { content }] of Object.entries(input)) hash.update(name).update('\0').update(content).update('\0');
  return hash.digest('hex');
}

function artifactPath(outDir: string, name: string): string {
  return join(outDir, `${name}.json`);
}

function upToDate(outDir: string, sourceHash: string): boolean {
  return DEPLOYED.every((name) => {
    const path = artifactPath(outDir, name);
    return existsSync(path) && (JSON.parse(readFileSync(path, 'utf8')) as Artifact).sourceHash === sourceHash;
  });
}

/** Compiles (or finds cached) artifacts of the deployed contracts; throws with solc's errors. */
export function compileContracts(outDir: string = DEFAULT_OUT_DIR): { compiled: boolean; artifacts: Record<DeployedContract, Artifact> } {
  const solc = loadSolc();
  const input = sources();
  const sourceHash = hashOf(solc.version(), input);
  let compiled = false;
  if (!upToDate(outDir, sourceHash)) {
    const output = JSON.parse(
      solc.compile(JSON.stringify({ language: 'Solidity', sources: input, settings: SETTINGS }), {
        // Every import is one of ours, already in `sources`: anything else is a mistake.
        import: (path) => ({ error: `unexpected import ${path}: only interop/contracts/*.sol may be imported` }),
      }),
    ) as {
      errors?: { severity: string; formattedMessage: string }[];
      contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
    };
    const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
    if (errors.length > 0) throw new Error(`solc ${solc.version()} failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
    mkdirSync(outDir, { recursive: true });
    for (const name of DEPLOYED) {
      const compiledContract = output.contracts?.[`${name}.sol`]?.[name];
      if (!compiledContract) throw new Error(`solc produced no ${name}`);
      const artifact: Artifact = {
        contractName: name,
        abi: compiledContract.abi,
        bytecode: `0x${compiledContract.evm.bytecode.object}`,
        deployedBytecode: `0x${compiledContract.evm.deployedBytecode.object}`,
        solcVersion: solc.version(),
        sourceHash,
      };
      // Written whole, then renamed: a reader never sees half a file.
      const path = artifactPath(outDir, name);
      writeFileSync(`${path}.tmp`, `${JSON.stringify(artifact, null, 2)}\n`);
      renameSync(`${path}.tmp`, path);
    }
    compiled = true;
  }
  const artifacts = Object.fromEntries(
    DEPLOYED.map((name) => [name, JSON.parse(readFileSync(artifactPath(outDir, name), 'utf8')) as Artifact]),
  ) as Record<DeployedContract, Artifact>;
  return { compiled, artifacts };
}

if (process.argv[1] && basename(process.argv[1]) === basename(fileURLToPath(import.meta.url))) {
  const outDir = resolve(process.argv[2] ?? DEFAULT_OUT_DIR);
  try {
    const { compiled, artifacts } = compileContracts(outDir);
    const sizes = DEPLOYED.map((n) => `${n} ${(artifacts[n].deployedBytecode.length - 2) / 2} bytes`).join(', ');
    process.stderr.write(`interop: contracts ${compiled ? 'compiled' : 'up to date'} in ${outDir} (${sizes})\n`);
  } catch (err) {
    process.stderr.write(`interop: compiling interop/contracts failed: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
