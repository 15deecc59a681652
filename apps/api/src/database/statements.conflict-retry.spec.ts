import { withConflictRetry } from './statements';

const conflict = (code: string) => Object.assign(new Error('deadlock detected'), { driverError: { code } });

describe('withConflictRetry', () => {
  it('runs a transaction again after a deadlock or serialization failure', async () => {
    const work = jest
      .fn()
      .mockRejectedValueOnce(conflict('40P01'))
      .mockRejectedValueOnce(conflict('40001'))
      .mockResolvedValue('done');
    await expect(withConflictRetry(work)).resolves.toBe('done');
    expect(work).toHaveBeenCalledTimes(3);
  });

  it('gives up after a bounded number of attempts and lets the conflict through', async () => {
    const work = jest.fn().mockRejectedValue(conflict('40P01'));
    await expect(withConflictRetry(work, 3)).rejects.toMatchObject({ driverError: { code: '40P01' } });
    expect(work).toHaveBeenCalledTimes(3);
  });

  it('never repeats work that failed for any other reason', async () => {
    const work = jest.fn().mockRejectedValue(Object.assign(new Error('unique'), { driverError: { code: '23505' } }));
    await expect(withConflictRetry(work)).rejects.toThrow('unique');
    expect(work).toHaveBeenCalledTimes(1);
  });
});
