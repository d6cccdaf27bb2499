import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/interop runs against real avalanchego nodes: `npm run test:interop` (vitest.interop.config.ts).
    exclude: [...configDefaults.exclude, 'test/interop/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
