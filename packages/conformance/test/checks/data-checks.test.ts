import { describe, expect, it } from 'vitest';
import { negativeDataRejection } from '../../src/checks/negative-data-rejection.js';
import { positiveDataAcceptance } from '../../src/checks/positive-data-acceptance.js';
import { exchange, PROBLEM } from '../support/exchanges.js';

const unauthorized = {
  type: 'urn:institution-api:problem:unauthorized',
  title: 'Unauthorized',
  status: 401,
};

describe('positive_data_acceptance', () => {
  it('fails a 401 to a correctly signed valid request instead of counting it as a pass', () => {
    const outcome = positiveDataAcceptance(exchange('createUser', 401, unauthorized, PROBLEM));
    expect(outcome.ok).toBe(false);
    expect(outcome.message).toMatch(/correctly signed request was refused with 401/);
  });

  it('passes a 2xx, and a 409 only when the run expected the conflict', () => {
    expect(positiveDataAcceptance(exchange('createUser', 201, {})).ok).toBe(true);
    const conflict = exchange('createUser', 409, { status: 409, title: 'Conflict' }, PROBLEM);
    expect(positiveDataAcceptance(conflict).ok).toBe(false);
    expect(positiveDataAcceptance(conflict, true).ok).toBe(true);
  });
});

describe('negative_data_rejection', () => {
  it('wants a 400 whose problem names the broken field', () => {
    const naming = {
      status: 400,
      title: 'Bad Request',
      errors: [{ path: '/body/network', message: 'network is required when accountType is MOMO' }],
    };
    expect(
      negativeDataRejection(exchange('createUser', 400, naming, PROBLEM), 'network', 'x').ok,
    ).toBe(true);
    const silent = { status: 400, title: 'Bad Request', detail: 'The request is invalid.' };
    expect(
      negativeDataRejection(exchange('createUser', 400, silent, PROBLEM), 'network', 'x'),
    ).toMatchObject({ ok: false });
  });

  it('lets a broken conditional rule be answered by naming another field of the rule', () => {
    const rule = {
      status: 400,
      title: 'Bad Request',
      errors: [
        {
          path: '/body/accountType',
          message: 'accountType is required when account details are given',
        },
      ],
    };
    const answer = exchange('createUser', 400, rule, PROBLEM);
    expect(negativeDataRejection(answer, 'network', 'x').ok).toBe(false);
    expect(negativeDataRejection(answer, 'network', 'x', ['accountType', 'network']).ok).toBe(true);
  });

  it('fails invalid data that was accepted, or refused with another status', () => {
    expect(
      negativeDataRejection(exchange('createUser', 201, {}), 'email', '/email not an email')
        .message,
    ).toMatch(/answered 201: the service accepted it/);
    expect(
      negativeDataRejection(exchange('createUser', 401, unauthorized, PROBLEM), 'email', 'x').ok,
    ).toBe(false);
  });
});
