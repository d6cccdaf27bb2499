// `warpgate verify` through the real binary, as a user runs it.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureValidatorsAtResult, vector } from '../validators/fixture.js';
import { WARPGATE } from '../source-cli.js';


interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function warpgate(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...WARPGATE, ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let dir: string;
let atFile: string;
let currentFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warpgate-verify-'));
  atFile = join(dir, 'validators-at.json');
  currentFile = join(dir, 'current.json');
  await writeFile(atFile, JSON.stringify(fixtureValidatorsAtResult()));
  // The same set as a platform.getCurrentValidators result of an L1, keyless entry included.
  const validators = Object.entries(fixtureValidatorsAtResult()).map(([nodeID, v]) =>
    v.publicKey ? { nodeID, weight: v.weight, publicKey: v.publicKey, balance: '100' } : { nodeID, weight: v.weight },
  );
  await writeFile(currentFile, JSON.stringify({ validators }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('warpgate verify', () => {
  it('exits 0 and prints the result for a message signed by a quorum', async () => {
    const run = await warpgate(['verify', '--message', `0x${vector.cases[0]!.signedMessage}`, '--validators', atFile]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ valid: true, signedWeight: '500', totalWeight: '650', signers: [0, 1] });
  });

  it('exits 1 with valid:false below quorum', async () => {
    const run = await warpgate(['verify', '--message', vector.cases[1]!.signedMessage, '--validators', currentFile, '--network-id', '5', '--backend', 'noble']);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ valid: false, signedWeight: '300', totalWeight: '650', signers: [0, 2] });
    expect(result.reason).toMatch(/insufficient weight/);
  });

  it('honours --quorum and --network-id', async () => {
    const lower = await warpgate(['verify', '--message', vector.cases[1]!.signedMessage, '--validators', atFile, '--quorum', '40']);
    expect(lower.code).toBe(0);
    const wrongNet = await warpgate(['verify', '--message', vector.cases[0]!.signedMessage, '--validators', atFile, '--network-id', '1']);
    expect(wrongNet.code).toBe(1);
    expect(JSON.parse(wrongNet.stdout).reason).toBe('network ID is 5, expected 1');
  });

  it('reports unreadable input on one stderr line with exit 1', async () => {
    const badJson = join(dir, 'bad.json');
    await writeFile(badJson, '{"validators": ');
    for (const args of [
      ['--message', vector.cases[0]!.signedMessage, '--validators', join(dir, 'missing.json')],
      ['--message', 'not-hex', '--validators', atFile],
      ['--message', vector.cases[0]!.signedMessage, '--validators', badJson],
    ]) {
      const run = await warpgate(['verify', ...args]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^warpgate verify: /);
    }
  });
});
