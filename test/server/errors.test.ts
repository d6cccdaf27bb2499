// The one error mapping: each error class answers with its status and message whichever wing
// throws it, a subclass as its base class, messages about the height name the request's own
// field, and anything unknown is a 500 that says nothing of its cause.
import { describe, expect, it } from 'vitest';
import { ChosenHeightError, NoSigningValidatorsError, SigningSubnetNotAllowedError } from '../../src/aggregator/errors.js';
import { DestinationChainError, NodeError, NodeNotConfiguredError, UnfinalizedHeightError, UnknownSubnetError } from '../../src/node/errors.js';
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

  it('no signer at a height the service chose is the network (503); at a height the client chose, its choice (400)', () => {
    expect(classifyError(new NoSigningValidatorsError('subnet', 12, 'proposed')).status).toBe(503);
    expect(classifyError(new NoSigningValidatorsError('subnet', 12, 'epoch')).status).toBe(503);
    expect(classifyError(new NoSigningValidatorsError('subnet', 12, 'explicit'))).toMatchObject({ status: 400, message: expect.stringMatching(/^pChainHeight: /) });
  });

  it('at a height the service chose, what would be the client’s fault is 503 with Retry-After; the rest keeps its own answer', () => {
    const above = new ChosenHeightError(900, 'epoch', new UnfinalizedHeightError(900, 800));
    expect(classifyError(above)).toMatchObject({ status: 503, headers: { 'retry-after': '1' }, expected: true });
    expect(classifyError(above).message).toMatch(/^the validator set at P-Chain height 900 \(the destination chain's current epoch height\) could not be read: 900 is above/);
    expect(classifyError(new ChosenHeightError(900, 'proposed', new NodeError('platform.getValidatorsAt', 'timeout', 'no answer'))).status).toBe(504);
    expect(classifyError(new ChosenHeightError(900, 'proposed', new UnknownSubnetError('s', 'not found'))).status).toBe(404);
    expect(classifyError(new ChosenHeightError(900, 'proposed', new TypeError('a bug')))).toMatchObject({ status: 500, message: 'internal error', expected: false });
  });

  it('a signing subnet not served is 403; a destination chain that cannot be read is 502 naming it', () => {
    expect(classifyError(new SigningSubnetNotAllowedError('2D8R…'))).toMatchObject({ status: 403, message: 'signing subnet 2D8R… is not served here (aggregation.allowedSigningSubnets)' });
    const failure = new NodeError('proposervm.getCurrentEpoch', 'unreachable', 'node unreachable: ECONNREFUSED');
    expect(classifyError(new DestinationChainError('yH8D…', failure))).toMatchObject({
      status: 502,
      message: 'destination chain yH8D…: its current epoch could not be read (proposervm.getCurrentEpoch): node unreachable: ECONNREFUSED',
    });
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
