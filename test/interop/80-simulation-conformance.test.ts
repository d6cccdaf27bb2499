// The devnet's simulated avalanchego node held to the real one: every conformance case
// (test/conformance/cases.ts) is sent, built for each network's IDs, to a real node of the
// interop network and to a simulated node configured as the devnet configures it, over
// avalanchego's peer protocol; each must give the same outcome on both (a verified signature,
// the same AppError code, silence, or the connection closed). The one accepted difference is
// the devnet's EVM chain counting every well-formed message of its own chain as sent. The
// table of outcomes is printed, and docs/interop.md holds it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CASES, type CaseOutcome, type ConformanceSubject } from '../conformance/cases.js';
import { realSubject } from '../conformance/real-subject.js';
import { startSimulatedSubject } from '../conformance/simulated-subject.js';
import type { SimulatedAvalancheNode } from '../../src/devnet/avalanchego-node/node.js';

const net = inject('interopNetwork');

let real: ConformanceSubject;
let simulated: { subject: ConformanceSubject; node: SimulatedAvalancheNode };
const rows: string[] = [];

/** Runs every case on one subject, a few at a time (each case opens its own connection). */
async function runAll(subject: ConformanceSubject): Promise<CaseOutcome[]> {
  const out: CaseOutcome[] = new Array(CASES.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < CASES.length) {
      const i = next++;
      out[i] = await CASES[i]!.run(subject);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return out;
}

let realOutcomes: CaseOutcome[];
let simulatedOutcomes: CaseOutcome[];

beforeAll(async () => {
  real = await realSubject(net);
  simulated = await startSimulatedSubject();
  [realOutcomes, simulatedOutcomes] = await Promise.all([runAll(real), runAll(simulated.subject)]);
  for (const [i, c] of CASES.entries()) rows.push(`| ${c.group} | ${c.name} | ${realOutcomes[i]} | ${simulatedOutcomes[i]} |`);
  process.stderr.write(`conformance:\n| group | case | real node | simulated node |\n|---|---|---|---|\n${rows.join('\n')}\n`);
}, 5 * 60_000);

afterAll(async () => {
  await simulated?.node.close();
});

describe('the simulated avalanchego node answers as the real one does', () => {
  for (const [i, c] of CASES.entries()) {
    it(`${c.group}: ${c.name}`, () => {
      if (c.acceptedDifference) {
        // The real node refuses what it never sent; the devnet signs it (it runs no EVM).
        expect(realOutcomes[i]).toMatch(/^app-error [12]$/);
        expect(simulatedOutcomes[i]).toBe('signature');
      } else {
        expect(simulatedOutcomes[i], `real node: ${realOutcomes[i]}`).toBe(realOutcomes[i]);
      }
    });
  }

  it('the signable cases are signed, with a signature that verifies under each node\'s BLS key', () => {
    const signable = CASES.flatMap((c, i) => (c.name.startsWith('signable:') ? [realOutcomes[i]] : []));
    expect(signable.length).toBeGreaterThanOrEqual(3);
    expect(new Set(signable)).toEqual(new Set(['signature']));
  });
});
