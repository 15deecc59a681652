import { isOutcomeUnknown } from './outcome-unknown';

describe('isOutcomeUnknown', () => {
  it('counts a lost answer as unknown: client timeout, reset, end of connection', () => {
    expect(isOutcomeUnknown(new Error('Query read timeout'))).toBe(true);
    expect(isOutcomeUnknown(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isOutcomeUnknown(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('counts a server going away as unknown even with a SQLSTATE', () => {
    expect(isOutcomeUnknown({ code: '57P01', message: 'terminating connection due to administrator command' })).toBe(
      true,
    );
    expect(isOutcomeUnknown({ code: '08006' })).toBe(true);
  });

  it('counts an error reply of the server as definite: the statement was rolled back', () => {
    for (const code of ['23505', '40001', '40P01', '55P03', '57014', '22003'])
      expect(isOutcomeUnknown({ code })).toBe(false);
    expect(isOutcomeUnknown({ driverError: { code: '40001' } })).toBe(false);
  });

  it('is false for no error at all', () => {
    expect(isOutcomeUnknown(undefined)).toBe(false);
  });
});
