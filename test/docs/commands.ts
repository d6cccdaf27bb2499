// Every shell command README.md and docs/*.md show in a ```sh block, in exactly one of two lists:
// run by a test (that test names, in its own source, the short form it runs), or not run here,
// with the reason. test/docs/commands.test.ts fails on a command in neither list, in both, or on
// an entry no doc shows any more.
//
// A new doc's command: copy the key the failing test prints (the command as the docs show it,
// continuation lines joined, comments dropped, whitespace collapsed) into one list below.

export interface RunByTest {
  /** The test file that runs the command, or a short form of it. */
  test: string;
  /** Text in that test's source that is the short form it runs (checked to be there). */
  runs: string;
}

export const RUN_BY_TESTS: Record<string, RunByTest> = {
  // npm start is `node bin/warpgate.js serve`; the test starts the same binary without a config.
  'npm ci && npm start': { test: 'test/cli/serve-devnet.test.ts', runs: "startWarpgate(['serve', '--port', '0']" },
  'curl -s -X POST http://127.0.0.1:8080/v1/signatureAggregator/fuji/aggregateSignatures -H \'content-type: application/json\' -d \'{"message":"0x…the unsigned Warp message the devnet printed…"}\'': {
    test: 'test/cli/serve-devnet.test.ts',
    runs: '/v1/signatureAggregator/fuji/aggregateSignatures`, { message }',
  },
  'curl -s -X POST http://127.0.0.1:8080/v1/signatureAggregator/fuji/aggregateSignatures -H \'content-type: application/json\' -d \'{"message":"0x…unsigned Warp message…","quorumPercentage":67}\'': {
    test: 'test/cli/serve-devnet.test.ts',
    runs: '/v1/signatureAggregator/fuji/aggregateSignatures`, { message }',
  },
  'curl -s -X POST {pchainUrl}/ext/devnet -H \'content-type: application/json\' -d \'{"jsonrpc":"2.0","id":1,"method":"devnet.advanceEpoch","params":{"pChainHeight":"136"}}\'': {
    test: 'test/devnet/epochs.test.ts',
    runs: "method: 'devnet.advanceEpoch', params: { pChainHeight:",
  },
  'warpgate keygen --staking /etc/warpgate': { test: 'test/cli/identity.test.ts', runs: "warpgate(['keygen', '--staking', dir])" },
  'warpgate identity --tls-cert /etc/warpgate/staker.crt': { test: 'test/cli/identity.test.ts', runs: "'--tls-cert'" },
  'cat > policy.json <<\'JSON\' { "networkId": 5, "allowedSourceChains": ["<cb58 ID of your chain>"], "confirmWithNode": "http://127.0.0.1:9650", "pchainNode": "http://127.0.0.1:9650" } JSON': {
    test: 'test/signer/cli.test.ts',
    runs: 'allowedSourceChains: [idToString(CHAIN_A)], confirmWithNode: node.url',
  },
  'warpgate signer --key ~/.avalanchego/staking/signer.key --policy policy.json --listen 9700 --host 0.0.0.0': {
    test: 'test/signer/cli.test.ts',
    runs: "start(['--key', keyPath, '--listen', '0', '--policy', policyPath])",
  },
  'for r in a b c; do npx warpgate keygen --staking "staking/$r"; done': { test: 'test/cli/identity.test.ts', runs: "warpgate(['keygen', '--staking', dir])" },
  // The bench's usage line: the test runs a tiny network through the same npm entry.
  'npm run bench -- [--validators N] [--transport ws|p2p] [--weights uniform|skewed] [--latency lognormal:MEDIAN_MS:SIGMA] [--offline PCT] [--byzantine PCT] [--quorum 67] [--buffer 0] [--runs R] [--concurrency C] [--backend blst|noble] [--json FILE] [--fan-out-extra PCT] [--service-heap-mb MB] [--signature-cache-max N] [--workers N] [--io-shards N] [--strategies warpgate,icmServices,warpgateAllSigners,perSignatureVerify,floor] [--seed S] [--warmup 20] [--signer-processes 2] [--validators-nice 0-19] [--cpu-prof DIR] [--perf DIR]':
    { test: 'test/bench/quorum.test.ts', runs: "packagePath('bench/quorum.ts')" },
};

const NO_DOCKER = 'needs a Docker engine, which the test machines lack; test/ops/docker.test.ts carries out the Dockerfile\'s stages without one and runs the image\'s ENTRYPOINT, CMD and HEALTHCHECK';

const NEEDS_ICM_SOURCE =
  'needs Go, an icm-services checkout (GitHub or a mirror) and minutes of build; test/bench/icm-services.test.ts covers the strategy\'s pieces without them, and test/bench/pchain-stub.test.ts and test/devnet/avalanchego-node/tracked-subnets.test.ts what the real client needs of the simulated network';

export const NOT_RUN_HERE: Record<string, string> = {
  'warpgate relay --config relayer.json':
    "needs chains to relay between (the interop network's C-Chain and L1, npm run test:interop) and the relayer's engine and EVM side; test/cli/relay.test.ts runs the command up to its config checks, test/service/relayer-wiring.test.ts the service it starts with fakes of those parts",
  'interop/icm/fetch-source.sh': NEEDS_ICM_SOURCE,
  'npm run bench -- --transport p2p --strategies warpgate,icmServices,floor --validators 100': NEEDS_ICM_SOURCE,
  'npm test': 'it is the test suite itself (CI runs it)',
  'WARPGATE_REDIS_URL=redis://:$REDIS_PASSWORD@redis:6379/0 warpgate relay --config relayer.json':
    'two relayers on real chains sharing a Redis host; test/relayer/redis-standby.test.ts runs two relayers (the engine) on one Redis, test/interop/65-relayer-standby.test.ts two `warpgate relay` processes on the real network (npm run test:interop)',
  'node --import tsx bench/soak.ts --minutes 30 --validators 100 --rate 5 --kill-every 90': 'a 30-minute soak; benchmarks and soaks are commands, not CI',
  'npm run test:interop': 'it is the interop suite itself (.ci/run runs it after npm test)',
  'npm run bench:replicas -- --json bench/results/replicas/run3.json': 'a benchmark of several minutes (three replicas, one Redis, a devnet); benchmarks are commands, not CI',
  'npm run bench:relayer -- [--network FILE] [--messages 60] [--rate 2] [--warmup 2] [--required-gas-limit 200000] [--payload-bytes 64] [--deadline-s 600] [--json FILE]':
    "a benchmark on the real interop network (avalanchego built from Go modules, minutes to start); benchmarks are commands, not CI. test/bench/relayer-figures.test.ts covers what its figures mean; npm run test:interop runs the relayer it measures",
  'docker build -t warpgate .': NO_DOCKER,
  'docker run -p 8080:8080 warpgate': NO_DOCKER,
  'docker run -d --name warpgate -p 8080:8080 -v "$PWD/config.json:/etc/warpgate/config.json:ro" -e WARPGATE_CONFIG=/etc/warpgate/config.json -e WARPGATE_UPSTREAMS_API_KEY="$GLACIER_API_KEY" --stop-timeout 15 warpgate': NO_DOCKER,
};
