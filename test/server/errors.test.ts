// The one error mapping: each error class answers with its status and message whichever wing
// throws it, a subclass as its base class, messages about the height name the request's own
// field, and anything unknown is a 500 that says nothing of its cause.
import { describe, expect, it } from 'vitest';
import { NoSigningValidatorsError } from '../../src/aggregator/errors.js';
import { NodeError, NodeNotConfiguredError, UnfinalizedHeightError } from '../../src/node/errors.js';
import { L1RequestError } from '../../src/l1/errors.js';
import { BadRequestError, classifyError } from '../../src/server/errors.js';
import { ICM } from '../../src/server/dialects.js';

describe('classifyError', () => {
  it('answers a subclass as its base class: a BadRequestError is the 400 it carries', () => {
    expect(classifyError(new BadRequestError('quorumPercentage', 'must be from 0 to 100, got 101'))).toEqual({
      status: 400,
      message: 'quorumPercentage: must be from 0 to 100, got 101',
      headers: {},
      expected: true,
    });
  });

  it("names the height field as the request's dialect spells it", () => {
    const err = new UnfinalizedHeightError(900, 800);
    expect(classifyError(err).message).toMatch(/^pChainHeight: 900 is above the current P-Chain height 800/);
    expect(classifyError(err, ICM.fields.pChainHeight[0]).message).toMatch(/^pchain-height: 900 /);
  });

  it('no signer now is the network (503); no signer at a height the client chose is its choice (400)', () => {
    expect(classifyError(new NoSigningValidatorsError('subnet', 0)).status).toBe(503);
    expect(classifyError(new NoSigningValidatorsError('subnet', 12))).toMatchObject({ status: 400, message: expect.stringMatching(/^pChainHeight: /) });
  });

  it('maps L1 request kinds to 404 (not there) or 400 (a mistake), and node failures by kind', () => {
    expect(classifyError(new L1RequestError('uncommitted', 'not committed')).status).toBe(404);
    expect(classifyError(new L1RequestError('wrong-tx-type', 'not a conversion')).status).toBe(400);
    expect(classifyError(new NodeError('platform.getHeight', 'timeout', 'no answer within 1000 ms')).status).toBe(504);
  });

  it('a service without a node answers 503 saying which key is missing', () => {
    expect(classifyError(new NodeNotConfiguredError('validator sets'))).toMatchObject({
      status: 503,
      message: 'upstreams.node is not configured: validator sets cannot be read from the P-Chain',
      expected: true,
    });
  });

  it('anything else is an unexpected 500 with a generic message', () => {
    for (const err of [new Error('secret /srv/path'), new TypeError('x is undefined'), 'a string', null]) {
      expect(classifyError(err)).toEqual({ status: 500, message: 'internal error', headers: {}, expected: false });
    }
  });
});
