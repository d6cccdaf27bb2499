// The quorum options are read by one parser from a JSON body or from a URL query: the same rules
// (ranges, defaults, the sum, the height's spellings) with each source's own way of saying that
// a value is not a value at all.
import { describe, expect, it } from 'vitest';
import { GLACIER, ICM } from '../../src/server/dialects.js';
import { bodyFields, parseQuorumOptions, queryFields } from '../../src/server/quorum-options.js';

const SUBNET_HEX = `0x${'ab'.repeat(32)}`;

describe('the same rules for the body and the query', () => {
  it('reads the same options from JSON values and query strings', () => {
    const fromBody = parseQuorumOptions(bodyFields({ signingSubnetId: SUBNET_HEX, quorumPercentage: 70, quorumPercentageBuffer: 10, pChainHeight: 42 }), GLACIER.fields);
    const fromQuery = parseQuorumOptions(queryFields({ signingSubnetId: SUBNET_HEX, quorumPercentage: '70', quorumPercentageBuffer: '10', pChainHeight: '42' }), GLACIER.fields);
    expect(fromQuery).toEqual(fromBody);
    expect(fromBody).toEqual({ signingSubnetId: new Uint8Array(32).fill(0xab), quorumPercentage: 70, quorumPercentageBuffer: 10, pChainHeight: 42 });
  });

  it('defaults: quorum 67, no buffer, the current set; absent, null and empty alike', () => {
    const defaults = { signingSubnetId: undefined, quorumPercentage: 67, quorumPercentageBuffer: 0, pChainHeight: 0 };
    expect(parseQuorumOptions(bodyFields({}), GLACIER.fields)).toEqual(defaults);
    expect(parseQuorumOptions(bodyFields({ signingSubnetId: '', quorumPercentage: null, pChainHeight: null }), GLACIER.fields)).toEqual(defaults);
    expect(parseQuorumOptions(queryFields({ signingSubnetId: '', quorumPercentage: '' }), GLACIER.fields)).toEqual(defaults);
  });

  it('the range and the sum are one rule, quoting what the client sent', () => {
    expect(() => parseQuorumOptions(bodyFields({ quorumPercentage: 101 }), GLACIER.fields)).toThrow('quorumPercentage: must be from 0 to 100, got 101');
    expect(() => parseQuorumOptions(queryFields({ quorumPercentage: '101' }), GLACIER.fields)).toThrow('quorumPercentage: must be from 0 to 100, got 101');
    expect(() => parseQuorumOptions(queryFields({ pChainHeight: '99999999999999999999' }), GLACIER.fields)).toThrow(/^pChainHeight: must be from 0 to \d+, got 99999999999999999999$/);
    const sum = 'quorumPercentageBuffer: quorumPercentage + quorumPercentageBuffer must be at most 100, got 110';
    expect(() => parseQuorumOptions(bodyFields({ quorumPercentage: 90, quorumPercentageBuffer: 20 }), GLACIER.fields)).toThrow(sum);
    expect(() => parseQuorumOptions(queryFields({ quorumPercentage: '90', quorumPercentageBuffer: '20' }), GLACIER.fields)).toThrow(sum);
  });

  it("each source says in its own words what is not a value", () => {
    expect(() => parseQuorumOptions(bodyFields({ quorumPercentage: '67' }), GLACIER.fields)).toThrow('quorumPercentage: must be an integer, got "67"');
    expect(() => parseQuorumOptions(queryFields({ quorumPercentage: 'abc' }), GLACIER.fields)).toThrow("quorumPercentage: must be an integer, got 'abc'");
    expect(() => parseQuorumOptions(queryFields({ quorumPercentage: ['60', '70'] }), GLACIER.fields)).toThrow('quorumPercentage: must be given once, as a single value');
    expect(() => parseQuorumOptions(bodyFields({ signingSubnetId: 7 }), GLACIER.fields)).toThrow('signingSubnetId: must be a hex or cb58 string');
    expect(() => parseQuorumOptions(queryFields({ signingSubnetId: 'zz' }), GLACIER.fields)).toThrow(/^signingSubnetId: must be a 32-byte ID in hex or cb58: /);
  });
});

describe('the icm-services dialect', () => {
  it('reads quorum 0 as the default, and the height under either spelling', () => {
    expect(parseQuorumOptions(bodyFields({ 'quorum-percentage': 0, 'p-chain-height': 7 }), ICM.fields)).toMatchObject({ quorumPercentage: 67, pChainHeight: 7 });
    expect(parseQuorumOptions(bodyFields({ 'pchain-height': 8, 'p-chain-height': null }), ICM.fields)).toMatchObject({ pChainHeight: 8 });
    expect(() => parseQuorumOptions(bodyFields({ 'pchain-height': -1 }), ICM.fields)).toThrow(/^pchain-height: must be from 0 to/);
  });
});

describe('the destination chain and the client’s timeout', () => {
  const CHAIN_CB58 = '2D8RG4UpSXbPbvPCAWppNJyqTG2i2CAXSkTgmTBBvs7GKNZjsY';

  it('a destination in hex or cb58, from a body in either dialect or from the query', () => {
    const hex = parseQuorumOptions(bodyFields({ destinationBlockchainId: SUBNET_HEX, timeoutMs: 1500 }), GLACIER.fields);
    expect(hex).toMatchObject({ destinationBlockchainId: new Uint8Array(32).fill(0xab), timeoutMs: 1500 });
    const icm = parseQuorumOptions(bodyFields({ 'destination-blockchain-id': CHAIN_CB58, 'timeout-ms': 800 }), ICM.fields);
    const query = parseQuorumOptions(queryFields({ destinationBlockchainId: CHAIN_CB58, timeoutMs: '800' }), GLACIER.fields);
    expect(query).toEqual(icm);
    expect(icm.destinationBlockchainId).toHaveLength(32);
    // Absent: neither key appears.
    expect(parseQuorumOptions(bodyFields({}), GLACIER.fields)).not.toHaveProperty('destinationBlockchainId');
    expect(parseQuorumOptions(bodyFields({}), GLACIER.fields)).not.toHaveProperty('timeoutMs');
  });

  it('mistakes name the field as the dialect spells it', () => {
    expect(() => parseQuorumOptions(bodyFields({ destinationBlockchainId: 'not-an-id' }), GLACIER.fields)).toThrow(/^destinationBlockchainId: /);
    expect(() => parseQuorumOptions(bodyFields({ 'destination-blockchain-id': 12 }), ICM.fields)).toThrow('destination-blockchain-id: must be a hex or cb58 string');
    expect(() => parseQuorumOptions(bodyFields({ 'timeout-ms': 0 }), ICM.fields)).toThrow('timeout-ms: must be a positive number of milliseconds, got 0');
    expect(() => parseQuorumOptions(queryFields({ timeoutMs: '1.5' }), GLACIER.fields)).toThrow("timeoutMs: must be an integer, got '1.5'");
  });
});
