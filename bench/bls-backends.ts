// Times the two BLS backends on this machine:
//   node --import tsx bench/bls-backends.ts [--json FILE]
// Figures are medians; the table says how many timed iterations each comes from. noble is
// 20-40x slower than blst, so it gets fewer iterations and the whole run stays well under
// three minutes.
import { writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform } from 'node:os';
import { performance } from 'node:perf_hooks';
import { round } from './stats.js';
import { blstUnavailableReason, loadBackend, nobleBackend } from '../src/bls/index.js';
import type { BlsBackend, PublicKey, SecretKey } from '../src/bls/types.js';

const SIGNERS = 1000;

/** Timed iterations per figure (after untimed warm-up runs). */
const ITERATIONS = {
  blst: { verifyOne: 500, aggregateAndVerify: 20, parseBatches: 10, sign: 500, warmup: 20, aggregateWarmup: 2, subset: 200, together: 100 },
  noble: { verifyOne: 15, aggregateAndVerify: 3, parseBatches: 3, sign: 15, warmup: 2, aggregateWarmup: 1, subset: 5, together: 1 },
} as const;
/** Signatures per timed batch of the parse figure (reported per signature). */
const PARSE_BATCH = { blst: 1000, noble: 40 } as const;

interface Figure {
  /** Median of the timed iterations, milliseconds. */
  medianMs: number;
  iterations: number;
  /** The process's CPU time per iteration (mean), where the work may run on several threads. */
  cpuMs?: number;
}

interface BackendFigures {
  verifyOne: Figure;
  aggregateAndVerify1000: Figure & { signers: number };
  signatureParsePerSignature: Figure & { signaturesPerIteration: number };
  /** What the optimistic fold does per signature: decompress and sum, no subgroup check. */
  uncheckedSumPerSignature: Figure & { signaturesPerIteration: number };
  /** The same for the 192-byte uncompressed form warpgate's own signers send: no square root. */
  uncompressedSumPerSignature: Figure & { signaturesPerIteration: number };
  /**
   * The fewest signers' check at the end of an aggregation (SUBSET_OF signers, SUBSET_LEFT_OUT of
   * them taken out of the sum): the whole sum's check and then the subset's, each with its
   * pairing (what the BLS pool did before), against the subset's alone (what it does: only the
   * subset goes into the message).
   */
  wholeThenSubset: Figure;
  subsetAlone: Figure;
  /**
   * Final checks of CHECKS_TOGETHER aggregations, each over its own message, per check: one by
   * one (verifyAggregate each), and together in groups of 4 and of CHECKS_TOGETHER
   * (verifyAggregates, as the BLS pool checks the fold-and-checks that waited for a thread).
   * blst spreads a batch over its own threads: its CPU time is the figure to compare.
   */
  checksOneByOne: Figure;
  checksTogether4: Figure;
  checksTogetherAll: Figure;
  sign: Figure;
}

/** Aggregations whose final checks the "together" figures make at once (the pool's largest task). */
const CHECKS_TOGETHER = 16;

/** The fewest signers' check figures: a sum of this many, this many of them left out. */
const SUBSET_OF = 560;
const SUBSET_LEFT_OUT = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `f` warmup times untimed, then `iterations` times timed; returns the median in ms. */
function time(iterations: number, warmup: number, f: (i: number) => void): Figure {
  for (let i = 0; i < warmup; i++) f(i);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    f(i);
    samples.push(performance.now() - start);
  }
  return { medianMs: median(samples), iterations };
}

/** time(), with the process's CPU time as well (blst may use several threads), both per `per`. */
function timeWithCpu(iterations: number, warmup: number, per: number, f: (i: number) => void): Figure {
  for (let i = 0; i < warmup; i++) f(i);
  const samples: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    f(i);
    samples.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { medianMs: median(samples) / per, iterations, cpuMs: (cpu.user + cpu.system) / 1000 / iterations / per };
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`benchmark sanity check failed: ${what}`);
}

interface Committee {
  message: Uint8Array;
  secrets: Uint8Array[];
  publicKeys: Uint8Array[];
  signatures: Uint8Array[];
}

/** 1,000 distinct keys signing one message, made with the fastest backend available. */
function makeCommittee(maker: BlsBackend): Committee {
  const message = new TextEncoder().encode('warpgate bls benchmark: one Warp message, many signers');
  const secrets: SecretKey[] = Array.from({ length: SIGNERS }, () => maker.generateSecretKey());
  return {
    message,
    secrets: secrets.map((sk) => sk.bytes),
    publicKeys: secrets.map((sk) => maker.publicKeyOf(sk).bytes),
    signatures: secrets.map((sk) => maker.sign(sk, message).bytes),
  };
}

function measure(backend: BlsBackend, committee: Committee): BackendFigures {
  const n = ITERATIONS[backend.name];
  const { message } = committee;
  // Keys are parsed (and validated) once, as the canonical set does; not timed.
  const pks: PublicKey[] = committee.publicKeys.map((bytes) => backend.publicKeyFromBytes(bytes));
  const sigs = committee.signatures.map((bytes) => backend.signatureFromBytes(bytes));

  let ok = true;
  const verifyOne = time(n.verifyOne, n.warmup, (i) => {
    const k = i % SIGNERS;
    ok &&= backend.verify(pks[k]!, message, sigs[k]!);
  });
  check(ok, `${backend.name} verify`);

  const aggregateAndVerify = time(n.aggregateAndVerify, n.aggregateWarmup, () => {
    // What an aggregation does: accept each signature as avalanchego does, sum, one pairing.
    const checked = committee.signatures.map((bytes) => backend.signatureFromBytes(bytes));
    ok &&= backend.verify(backend.aggregatePublicKeys(pks), message, backend.aggregateSignatures(checked));
  });
  check(ok, `${backend.name} aggregate verify`);

  const batch = PARSE_BATCH[backend.name];
  const parse = time(n.parseBatches, 1, (i) => {
    const offset = (i * batch) % SIGNERS;
    for (let k = 0; k < batch; k++) backend.signatureFromBytes(committee.signatures[(offset + k) % SIGNERS]!);
  });

  const sumUnchecked = time(n.parseBatches, 1, (i) => {
    const offset = (i * batch) % SIGNERS;
    const list = Array.from({ length: batch }, (_, k) => committee.signatures[(offset + k) % SIGNERS]!);
    ok &&= backend.sumUncheckedSignatures(list).rejected.length === 0;
  });
  check(ok, `${backend.name} unchecked sum`);
  const uncompressed = committee.signatures.map((bytes) => backend.signatureUncompressed(backend.signatureFromBytes(bytes)));
  const sumUncompressed = time(n.parseBatches, 1, (i) => {
    const offset = (i * batch) % SIGNERS;
    const list = Array.from({ length: batch }, (_, k) => uncompressed[(offset + k) % SIGNERS]!);
    ok &&= backend.sumUncheckedSignatures(list).rejected.length === 0;
  });
  check(ok, `${backend.name} uncompressed sum`);

  // Unchecked sums as a fold makes them; the left-out ones are summed and negated, as the pool does.
  const whole = {
    pk: backend.aggregatePublicKeys(pks.slice(0, SUBSET_OF)),
    sig: backend.sumUncheckedSignatures(committee.signatures.slice(0, SUBSET_OF)).sum!,
  };
  const split = () => {
    const leftOut = {
      pk: backend.aggregatePublicKeys(pks.slice(0, SUBSET_LEFT_OUT)),
      sig: backend.sumUncheckedSignatures(committee.signatures.slice(0, SUBSET_LEFT_OUT)).sum!,
    };
    const negated = backend.negateSum(leftOut);
    return { subset: { pk: backend.aggregatePublicKeys([whole.pk, negated.pk]), sig: backend.aggregateSignatures([whole.sig, negated.sig]) } };
  };
  const wholeThenSubset = time(n.subset, n.aggregateWarmup, () => {
    ok &&= backend.verifyAggregate(whole.pk, message, whole.sig);
    const { subset } = split();
    ok &&= backend.verifyAggregate(subset.pk, message, subset.sig);
  });
  check(ok, `${backend.name} whole then subset`);
  const subsetAlone = time(n.subset, n.aggregateWarmup, () => {
    const { subset } = split();
    ok &&= backend.verifyAggregate(subset.pk, message, subset.sig);
  });
  check(ok, `${backend.name} subset alone`);

  // Aggregations' final checks, each its own message (one signer each: a sum's check costs the same).
  const aggregations = Array.from({ length: CHECKS_TOGETHER }, (_, k) => {
    const own = new TextEncoder().encode(`warpgate bls benchmark: aggregation ${k}`);
    const sk = backend.secretKeyFromBytes(committee.secrets[k]!);
    return { pk: pks[k]!, message: own, sig: backend.sumUncheckedSignatures([backend.sign(sk, own).bytes]).sum! };
  });
  const checksOneByOne = timeWithCpu(n.together, 1, CHECKS_TOGETHER, () => {
    for (const a of aggregations) ok &&= backend.verifyAggregate(a.pk, a.message, a.sig);
  });
  check(ok, `${backend.name} checks one by one`);
  const together = (size: number) =>
    timeWithCpu(n.together, 1, CHECKS_TOGETHER, () => {
      for (let at = 0; at < CHECKS_TOGETHER; at += size) ok &&= backend.verifyAggregates(aggregations.slice(at, at + size));
    });
  const checksTogether4 = together(4);
  const checksTogetherAll = together(CHECKS_TOGETHER);
  check(ok, `${backend.name} checks together`);

  const secret = backend.secretKeyFromBytes(committee.secrets[0]!);
  const sign = time(n.sign, n.warmup, (i) => {
    backend.sign(secret, Uint8Array.of(i & 0xff, i >> 8));
  });

  return {
    verifyOne,
    aggregateAndVerify1000: { ...aggregateAndVerify, signers: SIGNERS },
    signatureParsePerSignature: {
      medianMs: parse.medianMs / batch,
      iterations: parse.iterations,
      signaturesPerIteration: batch,
    },
    uncheckedSumPerSignature: {
      medianMs: sumUnchecked.medianMs / batch,
      iterations: sumUnchecked.iterations,
      signaturesPerIteration: batch,
    },
    uncompressedSumPerSignature: {
      medianMs: sumUncompressed.medianMs / batch,
      iterations: sumUncompressed.iterations,
      signaturesPerIteration: batch,
    },
    wholeThenSubset,
    subsetAlone,
    checksOneByOne,
    checksTogether4,
    checksTogetherAll,
    sign,
  };
}

function parseArgs(argv: string[]): { json?: string } {
  const out: { json?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') {
      const file = argv[++i];
      if (!file) throw new Error('--json needs a file name');
      out.json = file;
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write('usage: node --import tsx bench/bls-backends.ts [--json FILE]\n');
      process.exit(0);
    } else {
      throw new Error(`unknown argument: ${arg}`);
    }
  }
  return out;
}

function formatMs(ms: number): string {
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  let fallback: string | undefined;
  const native = loadBackend('blst', { onFallback: (reason) => (fallback = reason) });
  const backends: BlsBackend[] = native.name === 'blst' ? [native, nobleBackend()] : [nobleBackend()];
  if (fallback ?? blstUnavailableReason()) {
    process.stdout.write(`blst unavailable (${fallback ?? blstUnavailableReason()}); noble only\n`);
  }

  // Other processes competing for the CPU inflate every figure; the load is printed with them.
  const loadBefore = loadavg()[0] ?? 0;
  const committee = makeCommittee(backends[0]!);
  const results: Partial<Record<BlsBackend['name'], BackendFigures>> = {};
  for (const backend of backends) {
    process.stderr.write(`measuring ${backend.name}...\n`);
    results[backend.name] = measure(backend, committee);
  }

  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    platform: `${platform()}-${arch()}`,
    node: process.version,
    loadAverage1m: { before: round(loadBefore, 2), after: round(loadavg()[0] ?? 0, 2) },
  };
  const rows: [string, (f: BackendFigures) => Figure, (f: BackendFigures) => string][] = [
    ['verify one signature', (f) => f.verifyOne, (f) => `median of ${f.verifyOne.iterations}`],
    [
      `aggregate-and-verify ${SIGNERS} (subgroup checks + sums + 1 verify)`,
      (f) => f.aggregateAndVerify1000,
      (f) => `median of ${f.aggregateAndVerify1000.iterations}`,
    ],
    [
      'signature parse + subgroup check, per signature',
      (f) => f.signatureParsePerSignature,
      (f) =>
        `median of ${f.signatureParsePerSignature.iterations} × ${f.signatureParsePerSignature.signaturesPerIteration}`,
    ],
    [
      'signature decompress + sum, no subgroup check, per signature',
      (f) => f.uncheckedSumPerSignature,
      (f) => `median of ${f.uncheckedSumPerSignature.iterations} × ${f.uncheckedSumPerSignature.signaturesPerIteration}`,
    ],
    [
      'uncompressed signature decode + sum, no subgroup check, per signature',
      (f) => f.uncompressedSumPerSignature,
      (f) => `median of ${f.uncompressedSumPerSignature.iterations} × ${f.uncompressedSumPerSignature.signaturesPerIteration}`,
    ],
    [
      `fewest signers' check (${SUBSET_LEFT_OUT} of ${SUBSET_OF} out): whole sum, then subset`,
      (f) => f.wholeThenSubset,
      (f) => `median of ${f.wholeThenSubset.iterations}`,
    ],
    [
      `fewest signers' check (${SUBSET_LEFT_OUT} of ${SUBSET_OF} out): the subset alone`,
      (f) => f.subsetAlone,
      (f) => `median of ${f.subsetAlone.iterations}`,
    ],
    [
      `final checks of ${CHECKS_TOGETHER} aggregations, one by one, per check`,
      (f) => f.checksOneByOne,
      (f) => `median of ${f.checksOneByOne.iterations}; CPU ${formatMs(f.checksOneByOne.cpuMs!)}`,
    ],
    [
      `final checks of ${CHECKS_TOGETHER} aggregations, 4 together, per check`,
      (f) => f.checksTogether4,
      (f) => `median of ${f.checksTogether4.iterations}; CPU ${formatMs(f.checksTogether4.cpuMs!)}`,
    ],
    [
      `final checks of ${CHECKS_TOGETHER} aggregations, all together, per check`,
      (f) => f.checksTogetherAll,
      (f) => `median of ${f.checksTogetherAll.iterations}; CPU ${formatMs(f.checksTogetherAll.cpuMs!)}`,
    ],
    ['sign', (f) => f.sign, (f) => `median of ${f.sign.iterations}`],
  ];

  const names = backends.map((b) => b.name);
  const lines = [
    `BLS backends on ${machine.cpu} (${machine.cores} cores, ${machine.platform}, node ${machine.node}; ` +
      `1-min load average ${machine.loadAverage1m.before} before, ${machine.loadAverage1m.after} after)`,
    '',
    `| operation | ${names.join(' | ')}${names.length === 2 ? ' | noble / blst' : ''} |`,
    `|---|${names.map(() => '---|').join('')}${names.length === 2 ? '---|' : ''}`,
  ];
  for (const [label, pick, iterations] of rows) {
    const cells = backends.map((b) => {
      const figures = results[b.name]!;
      return `${formatMs(pick(figures).medianMs)} (${iterations(figures)})`;
    });
    const ratio =
      names.length === 2
        ? ` | ${(pick(results.noble!).medianMs / pick(results.blst!).medianMs).toFixed(1)}x`
        : '';
    lines.push(`| ${label} | ${cells.join(' | ')}${ratio} |`);
  }
  lines.push(
    '',
    `aggregate-and-verify is timed from the ${SIGNERS} 96-byte signatures and the pre-parsed keys: ` +
      'the subgroup check of each, plain sums of keys and signatures, and one verify.',
  );
  process.stdout.write(`${lines.join('\n')}\n`);

  if (args.json) {
    const figures = Object.fromEntries(
      Object.entries(results).map(([name, f]) => [
        name,
        {
          verifyOneMs: f.verifyOne,
          aggregateAndVerify1000Ms: f.aggregateAndVerify1000,
          signatureParseMsPerSignature: f.signatureParsePerSignature,
          uncheckedSumMsPerSignature: f.uncheckedSumPerSignature,
          uncompressedSumMsPerSignature: f.uncompressedSumPerSignature,
          fewestSignersWholeThenSubsetMs: f.wholeThenSubset,
          fewestSignersSubsetAloneMs: f.subsetAlone,
          finalChecksOneByOneMsPerCheck: f.checksOneByOne,
          finalChecksTogether4MsPerCheck: f.checksTogether4,
          finalChecksTogetherAllMsPerCheck: f.checksTogetherAll,
          signMs: f.sign,
        },
      ]),
    );
    writeFileSync(args.json, `${JSON.stringify({ machine, signers: SIGNERS, backends: figures }, null, 2)}\n`);
    process.stdout.write(`wrote ${args.json}\n`);
  }
}

main();
