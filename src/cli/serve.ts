// `warpgate serve [--config FILE] [--port P]`: the service. With no config file (neither
// --config nor WARPGATE_CONFIG) it runs on an embedded devnet, so a new user sees it work.
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { createLogger } from '../service/logger.js';
import { startService } from '../service/start.js';
import { l1MessageBuilder } from '../service/l1-builder.js';
import { startDevnet } from '../devnet/devnet.js';
import { describe, secondSignalNote } from './devnet.js';
import { firstShutdownSignal } from './signals.js';
import { intOption, parseArgs } from './args.js';
import { RELAYER_PARTS } from './relayer-parts.js';

export async function run(argv: string[]): Promise<number> {
  const { options } = parseArgs(
    argv,
    { config: { type: 'string', short: 'c' }, port: { type: 'string', short: 'p' }, 'log-format': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    'serve',
  );
  if (options.help) {
    process.stdout.write(
      'usage: warpgate serve [--config FILE] [--port P] [--log-format auto|json|pretty]\n' +
        '  without a config file (--config or WARPGATE_CONFIG) it serves an embedded devnet\n' +
        '  --log-format  logFormat: auto (the default) writes pretty lines on a terminal, JSON otherwise\n' +
        '  with relayer.routes in the config it also relays Teleporter messages (docs/relayer.md; warpgate relay runs the relayer alone)\n',
    );
    return 0;
  }
  const file = options.config ?? process.env.WARPGATE_CONFIG;
  const port = options.port === undefined ? undefined : intOption(options.port, 'port', 0, 65535, 8080);
  // Checked by the config schema like the same key from a file or WARPGATE_LOG_FORMAT.
  const overrides = { port, logFormat: options['log-format'] };
  if (!file) {
    // WARPGATE_PORT, WARPGATE_HOST and WARPGATE_LOG_LEVEL apply to the devnet's service too (the
    // host defaults to 0.0.0.0, so `docker run -p 8080:8080 warpgate` reaches it).
    const base = loadOrReport({ overrides });
    if (!base) return 2;
    const logger = createLogger(base.logLevel, 1, base.logFormat);
    const signalled = firstShutdownSignal(secondSignalNote);
    logger.info('no config file given (--config or WARPGATE_CONFIG): serving an embedded devnet');
    const devnet = await reportConfigProblems(startDevnet({ port: base.port, host: base.host, logger }));
    if (!devnet) return 2;
    process.stderr.write(describe(devnet));
    await signalled;
    await devnet.close();
    return 0;
  }
  const config = loadOrReport({ file, overrides });
  if (!config) return 2;
  const signalled = firstShutdownSignal(secondSignalNote);
  // With relayer.routes the service relays too (docs/relayer.md).
  const service = await reportConfigProblems(startService(config, { l1: l1MessageBuilder, relayer: RELAYER_PARTS }));
  if (!service) return 2;
  await signalled;
  await service.close();
  return 0;
}

/** What `starting` resolves to, or undefined after printing the problems of a ConfigError it threw (a port in use, say). */
export async function reportConfigProblems<T>(starting: Promise<T>): Promise<T | undefined> {
  try {
    return await starting;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const p of err.problems) process.stderr.write(`config: ${p}\n`);
    return undefined;
  }
}

/** The config, or undefined after printing one line per problem (the caller exits 2). */
export function loadOrReport(opts: Parameters<typeof loadConfig>[0]): Config | undefined {
  try {
    return loadConfig(opts);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`config: ${p}\n`);
      return undefined;
    }
    throw err;
  }
}
