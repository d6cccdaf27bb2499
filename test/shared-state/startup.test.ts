// redis.url as an operator meets it: a malformed URL is a config problem (`config: redis.url: …`,
// exit 2) from the file or WARPGATE_REDIS_URL; a Redis that refuses the password does not stop
// the service but is a clear error in the log and in /ready, and the password never shows.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/service/logger.js';
import { startService, type Service } from '../../src/service/start.js';
import { CapturedLog, cleanEnv, request, scrape, startWarpgate } from '../ops/helpers.js';
import { startRedis, type TestRedis } from './redis-server.js';

const dir = mkdtempSync(join(tmpdir(), 'warpgate-redis-'));

function configFile(redis: Record<string, unknown>): string {
  const file = join(dir, `config-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ port: 0, host: '127.0.0.1', redis }));
  return file;
}

describe('a malformed redis.url', () => {
  for (const [what, url, why] of [
    ['another scheme', 'http://127.0.0.1:6379', /redis\.url: must use redis: or rediss:/],
    ['no URL at all', 'localhost:6379:x', /redis\.url: (is not a URL|must use redis: or rediss:)/],
    ['a path that is no database number', 'redis://127.0.0.1:6379/cache', /redis\.url: the path is the database number/],
    ['a query string', 'redis://127.0.0.1:6379/0?tls=true', /redis\.url: must not have a query string/],
  ] as const) {
    it(`${what}: config: redis.url: … and exit 2, the password never echoed`, async () => {
      const withSecret = url.replace('//', '//:hunter2@');
      const wg = startWarpgate(['serve', '--config', configFile({ url: withSecret })], cleanEnv());
      const { code } = await wg.exited(60_000);
      expect(code).toBe(2);
      expect(wg.stderr()).toMatch(why);
      expect(wg.stderr()).toMatch(/^config: redis\.url: /m);
      expect(wg.stderr()).not.toContain('hunter2');
    }, 90_000);
  }

  it('from WARPGATE_REDIS_URL too', async () => {
    const wg = startWarpgate(['serve', '--config', configFile({})], cleanEnv({ WARPGATE_REDIS_URL: 'tcp://redis:6379' }));
    const { code } = await wg.exited(60_000);
    expect(code).toBe(2);
    expect(wg.stderr()).toMatch(/^config: WARPGATE_REDIS_URL \(redis\.url\).*must use redis: or rediss: \(TLS\), got tcp:/m);
  }, 90_000);

  it('well-formed ones load: TLS, user and password, a database', () => {
    for (const url of ['rediss://default:s3cret@redis.internal:6380/2', 'redis://127.0.0.1', 'redis://:pw@[::1]:6379/0']) {
      expect(loadConfig({ env: { WARPGATE_REDIS_URL: url } }).redis.url).toBe(url);
    }
  });
});

describe('a Redis that refuses the password', () => {
  let redis: TestRedis;
  let service: Service;
  const log = new CapturedLog();

  beforeAll(async () => {
    redis = await startRedis({ password: 'right-password' });
    const url = `redis://:wrong-password@127.0.0.1:${redis.port}`;
    service = await startService(loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', 'workers.threads': 1, 'redis.url': url, 'redis.connectTimeoutMs': 5000 } }), {
      logger: createLogger('info', log),
    });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await redis?.stop();
  });

  it('is a clear error at start, in /ready, on the status page and in /metrics; the service still answers', async () => {
    const startLine = log.records.find((r) => r.component === 'shared-state' && r.level === 50);
    expect(startLine?.msg).toMatch(/cannot use Redis at redis\.url: shared state unavailable: Redis refused the credentials in redis\.url \(WRONGPASS/);
    expect(log.lines.join('\n')).not.toContain('wrong-password');

    const ready = await request(`${service.url}/ready`);
    expect(ready.body.sharedState).toMatch(/^shared state unavailable: Redis refused the credentials in redis\.url/);
    expect(JSON.stringify(ready.body)).not.toContain('wrong-password');

    const status = await request(`${service.url}/status.json`);
    expect(status.body.sharedState.state).toBe('unavailable');
    expect(status.body.sharedState.reason).toMatch(/credentials/);

    const metrics = await scrape(service.url);
    expect(metrics.value('warpgate_shared_state_up')).toBe(0);
    expect((await request(`${service.url}/health`)).status).toBe(200);
  }, 60_000);
});
