// `warpgate devnet`: the whole local network in one command. With --json it prints exactly one
// JSON line once ready (the contract in design.md) and nothing else on stdout; logs go to stderr.
import { pino } from 'pino';
import { DEVNET_TRANSPORTS, startDevnet, type Devnet, type DevnetTransport } from '../devnet/devnet.js';
import { HEIGHTS } from '../devnet/genesis/index.js';
import { intOption, parseArgs, UsageError } from './args.js';
import { firstShutdownSignal } from './signals.js';
import { createLogger, type LogFormat } from '../service/logger.js';

const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];

const HELP = `usage: warpgate devnet [--validators N] [--transport ws|p2p|mixed] [--port P] [--seed S] [--byzantine K] [--epoch-height H] [--io-shards N] [--signer-delay-ms D] [--json] [--log-level L] [--log-format F]
  a simulated P-Chain node, N validators and the service on port P (default 8080)
  --transport T     how the validators are reached: ws (each runs warpgate signer), p2p (each is a
                    simulated avalanchego node, asked over avalanchego's peer protocol), or mixed
                    (the default: even-numbered validators avalanchego nodes, odd ones signers)
  --byzantine K     K validators misbehave (the honest ones keep more than 80% of the weight)
  --epoch-height H  the P-Chain height of the L1 chain's first epoch (default 124, before the last
                    validator joined: the set there differs from the current one); devnet.advanceEpoch
                    at {pchainUrl}/ext/devnet starts the next
  --io-shards N     the service's p2p.ioShards: its avalanchego connections in N worker threads
                    (default 0: on its main thread)
  --signer-delay-ms D  every signer peer waits D ms before it answers (default 0): to watch
                    hedging, deadlines or a graceful shutdown with aggregations in flight
  --json            print one JSON line with url, networkId, subnetId, blockchainId, pchainUrl, validators,
                    l1ConversionTxId, byzantine, signers, transport, p2p ([{nodeId, host, port}] of every
                    simulated avalanchego validator) and destinations once ready
  --log-format F    auto (the default: pretty lines when stderr, where the logs go, is a terminal;
                    JSON otherwise), json or pretty
`;

export async function run(argv: string[]): Promise<number> {
  const { options } = parseArgs(
    argv,
    {
      validators: { type: 'string' },
      port: { type: 'string' },
      seed: { type: 'string' },
      byzantine: { type: 'string' },
      transport: { type: 'string' },
      'epoch-height': { type: 'string' },
      'io-shards': { type: 'string' },
      'signer-delay-ms': { type: 'string' },
      json: { type: 'boolean' },
      'log-level': { type: 'string' },
      'log-format': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    'devnet',
  );
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const validators = intOption(options.validators, 'validators', 1, 5000, 8);
  const byzantine = intOption(options.byzantine, 'byzantine', 0, validators, 0);
  const port = intOption(options.port, 'port', 0, 65535, 8080);
  const transport = (options.transport ?? 'mixed') as DevnetTransport;
  if (!DEVNET_TRANSPORTS.includes(transport)) throw new UsageError(`devnet: --transport must be one of ${DEVNET_TRANSPORTS.join(', ')}, got '${options.transport}'`);
  const epochHeight = intOption(options['epoch-height'], 'epoch-height', HEIGHTS.conversion, HEIGHTS.current, HEIGHTS.registration - 1);
  // The config schema's own range (p2p.ioShards).
  const ioShards = intOption(options['io-shards'], 'io-shards', 0, 64, 0);
  const signerDelayMs = intOption(options['signer-delay-ms'], 'signer-delay-ms', 0, 60_000, 0);
  const json = options.json === true;
  const logFormat = (options['log-format'] ?? 'auto') as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) throw new UsageError(`devnet: --log-format must be one of ${LOG_FORMATS.join(', ')}, got '${options['log-format']}'`);
  const level = options['log-level'] ?? (json ? 'warn' : 'info');
  if (!pino.levels.values[level] && level !== 'silent') throw new UsageError(`devnet: --log-level must be one of ${Object.keys(pino.levels.values).join(', ')} or silent, got '${level}'`);
  // stdout is for the banner (or the one JSON line): the logs go to stderr.
  const logger = createLogger(level, 2, logFormat);
  // Listen for the signal before starting, so one that arrives during startup still exits 0.
  const signalled = firstShutdownSignal(secondSignalNote);
  const devnet = await startDevnet({
    validators,
    byzantine,
    port,
    transport,
    seed: options.seed,
    epochHeight,
    logger,
    ...(signerDelayMs > 0 ? { signerDelayMs } : {}),
    configOverrides: { 'p2p.ioShards': ioShards },
  });
  if (json) {
    process.stdout.write(`${JSON.stringify(devnet.info)}\n`);
  } else {
    process.stdout.write(describe(devnet));
  }
  await signalled;
  await devnet.close();
  return 0;
}

/** What a second Ctrl-C (or SIGTERM) during the graceful close says before the process exits. */
export function secondSignalNote(signal: NodeJS.Signals): void {
  process.stderr.write(`warpgate: ${signal} again: exiting now, without waiting for aggregations in flight\n`);
}

export function describe(devnet: Devnet): string {
  const { info, genesis } = devnet;
  const example = `curl -s -X POST ${info.url}/v1/signatureAggregator/fuji/aggregateSignatures \\
  -H 'content-type: application/json' \\
  -d '{"message":"${devnet.exampleMessageHex()}"}'`;
  return [
    `warpgate devnet is up: ${info.validators} validators (${info.signers} signer peers, ${info.p2p.length} avalanchego nodes${info.byzantine.length ? `, ${info.byzantine.length} byzantine` : ''}), network ID ${info.networkId}`,
    `  service        ${info.url}`,
    `  status page    ${info.url}/status   (latency, outcomes, validators; open it in a browser)`,
    `  P-Chain node   ${info.pchainUrl}/ext/bc/P`,
    `  subnet (L1)    ${info.subnetId}`,
    `  EVM chain      ${info.blockchainId}`,
    `  L1 conversion  ${info.l1ConversionTxId}`,
    `  destination    ${info.destinations[0]!.rpcUrl}/proposervm (epoch ${devnet.node.epochs.current.number} at P-Chain height ${devnet.node.epochs.current.pChainHeight})`,
    '',
    'Sign a message from the devnet chain:',
    example,
    '',
    `A Teleporter message to the EVM chain, signed at its epoch's P-Chain height ${devnet.node.epochs.current.pChainHeight}`,
    `(x-warpgate-pchain-height; the set there lacks the validator that joined at ${genesis.heights.registration}):`,
    `curl -si -X POST ${info.url}/v1/signatureAggregator/fuji/aggregateSignatures \\
  -H 'content-type: application/json' \\
  -d '{"message":"${devnet.exampleTeleporterMessageHex()}"}'`,
    `Next epoch, at the current P-Chain height: curl -s -X POST ${info.pchainUrl}/ext/devnet -H 'content-type: application/json' \\
  -d '{"jsonrpc":"2.0","id":1,"method":"devnet.advanceEpoch","params":{}}'`,
    '',
    `Signed P-Chain message for the L1 conversion:`,
    `curl -s ${info.url}/v1/signatureAggregator/fuji/aggregateSignatures/${info.l1ConversionTxId}`,
    '',
    `Metrics: ${info.url}/metrics   Readiness: ${info.url}/ready`,
    `(total weight ${genesis.totalWeight}; Ctrl-C stops after the aggregations in flight, twice exits at once)`,
    '',
  ].join('\n');
}
