// `warpgate decode` through the real binary, as a user runs it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const vectors = JSON.parse(readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'));
const v = vectors.signedMessages[0];

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function warpgate(args: string[], stdin?: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/warpgate.js', ...args], { cwd: root, timeout: 20_000, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

function abiBytes(hex: string): string {
  const len = hex.length / 2;
  const word = (n: number) => n.toString(16).padStart(64, '0');
  return `0x${word(32)}${word(len)}${hex}${'00'.repeat((32 - (len % 32)) % 32)}`;
}

describe('warpgate decode', () => {
  it('prints the signed vector as JSON with ids, signers and the L1 message', async () => {
    const r = await warpgate(['decode', v.signedMessage]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      kind: 'signed',
      networkId: 5,
      sourceChainId: { hex: `0x${v.sourceChainID}` },
      messageId: { hex: `0x${v.messageID}` },
      signerIndices: [1, 2],
      payload: { type: 'AddressedCall', inner: { type: 'L1ValidatorWeight', nonce: '4', weight: '41' } },
    });
    expect(out.messageId.cb58).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it('reads hex from stdin with -, and unwraps SendWarpMessage log data', async () => {
    const [fromStdin, fromLog] = await Promise.all([
      warpgate(['decode', '-'], `  0x${v.unsignedMessage}\n`),
      warpgate(['decode', abiBytes(v.unsignedMessage)]),
    ]);
    expect(fromStdin.code).toBe(0);
    expect(fromLog.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ kind: 'unsigned', messageId: { hex: `0x${v.messageID}` } });
    expect(JSON.parse(fromLog.stdout)).toEqual(JSON.parse(fromStdin.stdout));
  });

  it('malformed input: exit 1, one line on stderr, no stack trace', async () => {
    const inputs = ['zz', '0x123', '0000abcd', `${v.signedMessage}00`, `0001${v.unsignedMessage.slice(4)}`];
    const results = await Promise.all(inputs.map((hex) => warpgate(['decode', hex])));
    for (const r of results) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.endsWith('\n')).toBe(true);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^warpgate decode: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(results[3]!.stderr).toMatch(/trailing byte/);
    expect(results[4]!.stderr).toMatch(/codecVersion/);
  });

  it('a missing argument is a usage error', async () => {
    const r = await warpgate(['decode']);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
