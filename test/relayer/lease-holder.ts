// A relayer's route leases alone in a process, for the lease tests that pause (SIGSTOP) or kill a
// holder for real. Arguments: Redis URL, key prefix, route, ttlMs, renewEveryMs, pollEveryMs.
// Prints one JSON line per event: {"kind":"change","held":…} from onChange, and every 5 ms sample
// of holds(route, 0) that differs from the last one, or whose lease end moved
// ({"kind":"holds","held":…,"until":<wall-clock ms of the local expiry>}), each with `at`, the
// wall-clock time it was printed. The first sample after a pause is printed whatever it says
// ({"woke":true}).
import { SharedConnection } from '../../src/shared-state/connection.js';
import { RedisRouteLeases } from '../../src/relayer/store/redis-leases.js';

const [url, prefix, route, ttl, renew, poll] = process.argv.slice(2);
const conn = new SharedConnection({ url: url!, keyPrefix: prefix!, commandTimeoutMs: 1_000, connectTimeoutMs: 5_000 });
await conn.connect();
const leases = new RedisRouteLeases(conn, { ttlMs: Number(ttl), renewEveryMs: Number(renew), pollEveryMs: Number(poll) });
const say = (line: object): void => void process.stdout.write(`${JSON.stringify({ ...line, at: Date.now() })}\n`);
leases.start([route!], (_route, held) => say({ kind: 'change', held }));
let last = { held: false, until: 0, at: Date.now() };
setInterval(() => {
  const held = leases.holds(route!, 0);
  const until = held ? Math.round(Date.now() + leases.expiresIn(route!)) : 0;
  // A sample long after the last one (the process was paused) is printed whatever it says.
  const woke = Date.now() - last.at > 250;
  if (woke || held !== last.held || Math.abs(until - last.until) > 50) say({ kind: 'holds', held, until, woke });
  last = { held, until, at: Date.now() };
}, 5);
process.on('SIGTERM', () => void leases.stop().then(() => conn.close()).then(() => process.exit(0)));
