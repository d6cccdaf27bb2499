// The `warpgate` command as the tests start it: from its TypeScript sources under tsx, so a test
// always runs the code as it is now, never a dist/ compiled from older sources. The compiled
// command (bin/warpgate.js → dist/) is what test/ops/package.test.ts and test/ops/docker.test.ts
// run: the packed and installed package, and the Docker image's files.
import { packagePath, tsExecArgv } from '../src/util/ts-runtime.js';

/** node arguments that start `warpgate` from the sources; the command's own follow them. */
export const WARPGATE: readonly string[] = [...tsExecArgv(), packagePath('src/cli.ts')];
