// `warpgate decode` through the real binary, as a user runs it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FUJI_TELEPORTER_LOG_DATA } from '../warp/teleporter-vectors.js';
import { WARPGATE } from '../source-cli.js';

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
    const child = spawn(process.execPath, [...WARPGATE, ...args], { cwd: root, timeout: 20_000, stdio: 'pipe' });
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
    expect(out.payload.teleporter).toBeUndefined();
  });

  it('shows a real Fuji Teleporter message under the AddressedCall, uint256 values as decimal strings', async () => {
    const r = await warpgate(['decode', FUJI_TELEPORTER_LOG_DATA]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.payload.type).toBe('AddressedCall');
    expect(out.payload.sourceAddress).toBe('0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf');
    expect(out.payload.inner).toBeUndefined();
    const relayer = '0x7ec2afb0a06a73666adc24983ebdbf2b6f1d7082';
    expect(out.payload.teleporter).toEqual({
      messageNonce: '277',
      originSenderAddress: '0x8578ae7723751446b196bd5124e1bf57b40eb7bc',
      destinationBlockchainId: {
        hex: '0x7fc93d85c6d62c5b2ac0b519c87010ea5294012d1e407030d6acd0021cac10d5',
        cb58: 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp',
      },
      destinationAddress: '0x9660ed66aef60dfba5467afe865f612edbfb5c71',
      requiredGasLimit: '85000',
      allowedRelayerAddresses: [],
      receipts: ['4512', '4514', '4533', '4584', '4585'].map((n) => ({ receivedMessageNonce: n, relayerRewardAddress: relayer })),
      message: expect.stringMatching(/^0x[0-9a-f]{384}$/),
    });
    expect(out.payload.teleporter.message.endsWith('038d7ea4c68000')).toBe(true);
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
