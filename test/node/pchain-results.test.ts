import { describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/bls/index.js';
import { canonicalSet } from '../../src/validators/canonical-set.js';
import { ValidatorResultError } from '../../src/node/errors.js';
import { parseJsonLossless, quoteUnsafeIntegers } from '../../src/node/json.js';
import {
  EMPTY_NODE_ID,
  parseCurrentValidatorsDetailed,
  parseCurrentValidatorsResult,
  parseValidatorsAtResult,
  parseValidatorsFile,
} from '../../src/node/pchain-results.js';
import { hexToBytes } from '../../src/warp/hex.js';
import { fixtureValidatorsAtResult, KEYLESS_NODE_ID, nodeIdFor, vector } from '../validators/fixture.js';

const [keyA, keyB, keyC] = vector.validators.map((v) => `0x${v.publicKey}`) as [string, string, string];

function errorOf(fn: () => unknown): ValidatorResultError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidatorResultError);
    return err as ValidatorResultError;
  }
  throw new Error('expected a ValidatorResultError');
}

describe('platform.getValidatorsAt results', () => {
  it('reads the current bare-map shape, keyless entries included', () => {
    const entries = parseValidatorsAtResult(fixtureValidatorsAtResult());
    expect(entries).toHaveLength(4);
    expect(entries.find((e) => e.nodeId === nodeIdFor('B'))).toEqual({
      nodeId: nodeIdFor('B'),
      weight: 200n,
      publicKey: hexToBytes(keyB),
    });
    expect(entries.find((e) => e.nodeId === KEYLESS_NODE_ID)).toEqual({ nodeId: KEYLESS_NODE_ID, weight: 50n, publicKey: null });
    const set = canonicalSet(entries, loadBackend());
    expect(set.totalWeight).toBe(650n);
    expect(set.validators.map((v) => v.publicKeyHex)).toEqual(vector.canonical.map((c) => c.publicKey));
  });

  it('reads the older {validators: {NodeID: N}} shape, numbers or strings, without keys', () => {
    const entries = parseValidatorsAtResult({ validators: { [nodeIdFor('A')]: 100, [nodeIdFor('B')]: '18446744073709551615' } });
    expect(entries).toEqual([
      { nodeId: nodeIdFor('A'), weight: 100n, publicKey: null },
      { nodeId: nodeIdFor('B'), weight: 18446744073709551615n, publicKey: null },
    ]);
  });

  it('accepts an empty set and an absent publicKey', () => {
    expect(parseValidatorsAtResult({})).toEqual([]);
    expect(parseValidatorsAtResult({ [nodeIdFor('A')]: { weight: '5' } })).toEqual([{ nodeId: nodeIdFor('A'), weight: 5n, publicKey: null }]);
  });

  it('rejects bad weights, node ids and keys, naming the entry', () => {
    const a = nodeIdFor('A');
    const cases: [unknown, RegExp][] = [
      [{ [a]: { weight: '-1', publicKey: null } }, /weight '-1' is not a uint64/],
      [{ [a]: { weight: '18446744073709551616', publicKey: null } }, /is not a uint64/],
      [{ [a]: { weight: 1.5, publicKey: null } }, /is not a uint64/],
      [{ [a]: { weight: 2 ** 60, publicKey: null } }, /is not a uint64/],
      [{ [a]: { weight: '1', publicKey: '0x1234' } }, /publicKey must be 48 bytes, got 2/],
      [{ [a]: { weight: '1', publicKey: `0x${'zz'.repeat(48)}` } }, /not a hex digit/],
      [{ [a]: { weight: '1', publicKey: 7 } }, /publicKey must be a 0x hex string or null/],
    ];
    for (const [result, message] of cases) {
      const err = errorOf(() => parseValidatorsAtResult(result));
      expect(err.entry).toBe(a);
      expect(err.message).toMatch(message);
    }
    expect(errorOf(() => parseValidatorsAtResult({ 'NodeID-nope': { weight: '1' } })).entry).toBe('NodeID-nope');
    expect(errorOf(() => parseValidatorsAtResult({ validators: [] })).message).toMatch(/object keyed by NodeID/);
    expect(errorOf(() => parseValidatorsAtResult(null)).message).toMatch(/must be a JSON object/);
  });
});

describe('platform.getCurrentValidators results', () => {
  // Shapes as avalanchego's service.go prints them (vms/platformvm/api/validator.go).
  const primary = {
    validators: [
      {
        txID: '2oK3uWbe2Xv7mzHxrZvcyZcmy8dvGNnh4NRJHzxGAZ5Gf1DrJj',
        startTime: '1700000000',
        endTime: '1800000000',
        weight: '60',
        nodeID: nodeIdFor('A'),
        delegatorCount: '2',
        delegatorWeight: '40',
        signer: { publicKey: keyA, proofOfPossession: `0x${'00'.repeat(96)}` },
        delegationFee: '2.0000',
        connected: true,
        uptime: '100.0000',
      },
      {
        txID: '2oK3uWbe2Xv7mzHxrZvcyZcmy8dvGNnh4NRJHzxGAZ5Gf1DrJj',
        weight: 7,
        nodeID: nodeIdFor('old'),
        delegatorWeight: '0',
      },
    ],
  };
  const l1 = {
    validators: [
      {
        validationID: '2oK3uWbe2Xv7mzHxrZvcyZcmy8dvGNnh4NRJHzxGAZ5Gf1DrJj',
        nodeID: nodeIdFor('B'),
        publicKey: keyB,
        remainingBalanceOwner: { locktime: '0', threshold: '1', addresses: [] },
        deactivationOwner: { locktime: '0', threshold: '1', addresses: [] },
        startTime: '1700000000',
        weight: '200',
        minNonce: '0',
        balance: '1000000',
      },
      {
        validationID: '2oK3uWbe2Xv7mzHxrZvcyZcmy8dvGNnh4NRJHzxGAZ5Gf1DrJj',
        nodeID: nodeIdFor('C'),
        publicKey: keyC,
        startTime: '1700000000',
        weight: '300',
        minNonce: '0',
        balance: '0',
      },
      { nodeID: EMPTY_NODE_ID, weight: '50' },
    ],
  };

  it('Primary Network: key from signer.publicKey, weight includes delegations', () => {
    expect(parseCurrentValidatorsResult(primary)).toEqual([
      { nodeId: nodeIdFor('A'), weight: 100n, publicKey: hexToBytes(keyA) },
      { nodeId: nodeIdFor('old'), weight: 7n, publicKey: null },
    ]);
  });

  it('L1: key from publicKey; an inactive validator (balance 0) and the empty NodeID count as keyless weight', () => {
    const detailed = parseCurrentValidatorsDetailed(l1);
    expect(detailed.entries).toEqual([
      { nodeId: nodeIdFor('B'), weight: 200n, publicKey: hexToBytes(keyB) },
      { nodeId: nodeIdFor('C'), weight: 300n, publicKey: null },
      { nodeId: 'NodeID-111111111111111111116DBWJs', weight: 50n, publicKey: null },
    ]);
    expect(detailed.keysOnPrimaryNetwork).toEqual([]);
    const set = canonicalSet(detailed.entries, loadBackend());
    expect(set.totalWeight).toBe(550n);
    expect(set.validators).toHaveLength(1);
  });

  it('flags plain subnet stakers, whose keys live on the Primary Network', () => {
    const subnet = { validators: [{ txID: 'x', nodeID: nodeIdFor('S'), weight: '20', startTime: '1', endTime: '2' }] };
    expect(parseCurrentValidatorsDetailed(subnet)).toEqual({
      entries: [{ nodeId: nodeIdFor('S'), weight: 20n, publicKey: null }],
      keysOnPrimaryNetwork: [nodeIdFor('S')],
    });
  });

  it('rejects malformed entries, naming them', () => {
    expect(errorOf(() => parseCurrentValidatorsResult({ validators: [{ nodeID: 'NodeID-x', weight: '1' }] })).entry).toBe('validators[0] (NodeID-x)');
    expect(errorOf(() => parseCurrentValidatorsResult({ validators: [{ weight: '1' }] })).entry).toBe('validators[0]');
    expect(errorOf(() => parseCurrentValidatorsResult({ validators: [{ nodeID: nodeIdFor('A'), weight: 'x' }] })).entry).toBe(nodeIdFor('A'));
    expect(
      errorOf(() => parseCurrentValidatorsResult({ validators: [{ nodeID: nodeIdFor('A'), weight: '1', signer: { publicKey: '0x00' } }] }))
        .message,
    ).toMatch(/signer.publicKey must be 48 bytes/);
    expect(errorOf(() => parseCurrentValidatorsResult({ validators: [null] })).entry).toBe('validators[0]');
    expect(errorOf(() => parseCurrentValidatorsResult({})).message).toMatch(/must be \{validators: \[...\]\}/);
  });
});

describe('validators files', () => {
  it('detects each shape, and unwraps a whole JSON-RPC response', () => {
    expect(parseValidatorsFile(fixtureValidatorsAtResult())).toHaveLength(4);
    expect(parseValidatorsFile({ validators: { [nodeIdFor('A')]: '3' } })).toEqual([{ nodeId: nodeIdFor('A'), weight: 3n, publicKey: null }]);
    expect(parseValidatorsFile({ validators: [{ nodeID: nodeIdFor('A'), weight: '3', publicKey: keyA }] })[0]!.publicKey).toEqual(hexToBytes(keyA));
    expect(parseValidatorsFile({ jsonrpc: '2.0', id: 1, result: fixtureValidatorsAtResult() })).toHaveLength(4);
    expect(() => parseValidatorsFile({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } })).toThrow(/JSON-RPC error/);
    expect(() => parseValidatorsFile([1, 2])).toThrow(ValidatorResultError);
  });

  it('keeps uint64 weights exact through the lossless JSON reader', () => {
    const text = `{"validators": {"${nodeIdFor('A')}": 18446744073709551615, "${nodeIdFor('B')}": 12}}`;
    // Plain JSON.parse rounds it to 2^64.
    expect(BigInt(JSON.parse(text).validators[nodeIdFor('A')])).toBe(18446744073709551616n);
    expect(parseValidatorsFile(parseJsonLossless(text)).map((e) => e.weight)).toEqual([18446744073709551615n, 12n]);
  });
});

describe('lossless JSON', () => {
  it('quotes only integers a float64 cannot hold, never inside strings', () => {
    expect(quoteUnsafeIntegers('{"a": 9007199254740991, "b": 9007199254740993, "c": -9007199254740993}')).toBe(
      '{"a": 9007199254740991, "b": "9007199254740993", "c": "-9007199254740993"}',
    );
    expect(quoteUnsafeIntegers('{"s": "12345678901234567890 \\" 99999999999999999999", "f": 1.5e300, "n": [1,2]}')).toBe(
      '{"s": "12345678901234567890 \\" 99999999999999999999", "f": 1.5e300, "n": [1,2]}',
    );
    expect(parseJsonLossless('[18446744073709551615, 3, "x"]')).toEqual(['18446744073709551615', 3, 'x']);
    expect(() => parseJsonLossless('{"a": ')).toThrow(SyntaxError);
  });
});
