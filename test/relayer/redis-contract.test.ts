// The RelayerStore contract (test/relayer/store-contract.ts), which the embedded stores also pass,
// run against the Redis store on a real redis-server: each test its own key prefix.
import { afterAll, beforeAll } from 'vitest';
import { RedisRelayerStore } from '../../src/relayer/store/redis-store.js';
import { SharedConnection } from '../../src/shared-state/connection.js';
import { startRedis, type TestRedis } from '../shared-state/redis-server.js';
import { storeContract } from './store-contract.js';

let redis: TestRedis;
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  await redis?.stop();
});

storeContract('Redis store', async () => {
  const conn = new SharedConnection({ url: redis.url, keyPrefix: `contract${++prefixes}:`, commandTimeoutMs: 2_000, connectTimeoutMs: 5_000 });
  await conn.connect();
  return new RedisRelayerStore(conn, { ownsConnection: true });
});
