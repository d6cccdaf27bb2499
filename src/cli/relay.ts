// `warpgate relay --config FILE`: the relayer on its own (docs/relayer.md). It signs with the
// service's own aggregator in process (so it needs what aggregation needs: upstreams.node or the
// signer peers), and its HTTP port serves the manual relay API, the messages' states, /health,
// /ready (with the relayer's reasons), /metrics and the status page; no aggregation API and no
// forwarded read endpoints. SIGTERM or Ctrl-C: it takes no new messages, drains the deliveries
// in flight, records what was submitted, and exits 0.
import { startService } from '../service/start.js';
import { l1MessageBuilder } from '../service/l1-builder.js';
import { relayerConfigured } from '../service/relayer.js';
import { secondSignalNote } from './devnet.js';
import { firstShutdownSignal } from './signals.js';
import { intOption, parseArgs } from './args.js';
import { RELAYER_PARTS } from './relayer-parts.js';
import { loadOrReport, reportConfigProblems } from './serve.js';

const USAGE =
  'usage: warpgate relay --config FILE [--port P] [--log-format auto|json|pretty]\n' +
  '  relays Teleporter messages along relayer.routes (docs/relayer.md); the config needs relayer.chains,\n' +
  '  relayer.routes, relayer.keys, and what signing needs (upstreams.node, or signer peers)\n' +
  '  its port serves POST /relay and POST /relay/message (with relayer.manualRelayToken),\n' +
  '  GET /relay/messages/{id}, /health, /ready, /metrics and the status page\n' +
  '  SIGTERM or Ctrl-C: stop taking messages, drain deliveries in flight, exit 0\n';

export async function run(argv: string[]): Promise<number> {
  const { options } = parseArgs(argv, { config: { type: 'string', short: 'c' }, port: { type: 'string', short: 'p' }, 'log-format': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'relay');
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const file = options.config ?? process.env.WARPGATE_CONFIG;
  if (!file) {
    process.stderr.write(`relay: a config file is needed (--config FILE or WARPGATE_CONFIG)\n${USAGE}`);
    return 2;
  }
  const port = options.port === undefined ? undefined : intOption(options.port, 'port', 0, 65535, 8080);
  const config = loadOrReport({ file, overrides: { port, logFormat: options['log-format'] } });
  if (!config) return 2;
  if (!relayerConfigured(config)) {
    process.stderr.write('config: relayer.routes: warpgate relay needs at least one route (docs/relayer.md)\n');
    return 2;
  }
  const signalled = firstShutdownSignal(secondSignalNote);
  const service = await reportConfigProblems(startService(config, { l1: l1MessageBuilder, relayer: RELAYER_PARTS, relayOnly: true }));
  if (!service) return 2;
  await signalled;
  await service.close();
  return 0;
}
