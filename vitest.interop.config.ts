// `npm run test:interop`: warpgate against real avalanchego nodes (interop/, docs/interop.md).
// One network (4 Primary Network validators and an L1 of 3) is started for the whole run by
// the global setup; the files run one at a time, in name order, because the last one kills the
// network program with SIGKILL to check that its nodes go with it.
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }
}

export default defineConfig({
  test: {
    include: ['test/interop/**/*.test.ts'],
    globalSetup: ['test/interop/global-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    sequence: { sequencer: ByName },
    testTimeout: 5 * 60_000,
    // Building avalanchego cold and starting seven nodes on a small, shared machine.
    hookTimeout: 45 * 60_000,
    // Stopping seven nodes (the global teardown) takes longer than vitest's default 10 s.
    teardownTimeout: 5 * 60_000,
  },
});
