// warpgate's command line. Each command lives in src/cli/<command>.ts and exports
// `run(argv): Promise<number>` returning the exit code; it is loaded only when asked for, so
// `warpgate decode` does not pay for starting the server's dependencies.
import { UsageError } from './cli/args.js';

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> }> = {
  serve: { summary: 'run the service (no config: on an embedded devnet)', load: () => import('./cli/serve.js') },
  relay: { summary: 'relay Teleporter messages along relayer.routes (docs/relayer.md)', load: () => import('./cli/relay.js') },
  devnet: { summary: 'run a whole local network: P-Chain node, signer peers, the service', load: () => import('./cli/devnet.js') },
  signer: { summary: 'run the validator-side signer peer', load: () => import('./cli/signer.js') },
  keygen: { summary: 'write a new signer.key (--out) or staking certificate and key (--staking)', load: () => import('./cli/keygen.js') },
  identity: { summary: 'print the NodeID and BLS key of a staker.crt / signer.key', load: () => import('./cli/identity.js') },
  decode: { summary: 'decode a signed or unsigned Warp message to JSON', load: () => import('./cli/decode.js') },
  verify: { summary: 'verify a signed Warp message against a validator set', load: () => import('./cli/verify.js') },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`);
  return `usage: warpgate <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nwarpgate <command> --help shows a command's options.\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name === undefined ? 1 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`warpgate: unknown command '${name}'\n${usage()}`);
    return 1;
  }
  const mod = await command.load();
  return mod.run(rest);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  // One line, no stack: the commands throw typed errors whose message says what is wrong.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`warpgate: ${message}\n`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
}
