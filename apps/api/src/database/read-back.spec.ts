import type { DataSource } from 'typeorm';
import { readBack } from './read-back';

/** A DataSource whose transactions fail with each of `failures` in turn, then run the read. */
function flakyDatabase(failures: unknown[]) {
  let calls = 0;
  const db = {
    transaction: async (read: (tx: unknown) => Promise<unknown>) => {
      calls++;
      if (failures.length) throw failures.shift();
      return read({});
    },
  } as unknown as DataSource;
  return { db, calls: () => calls };
}

const lostConnection = () => new Error('Connection terminated unexpectedly');
const errorReply = () => Object.assign(new Error('relation "orderz" does not exist'), { code: '42P01' });

describe('readBack', () => {
  it('tries a read whose own answer was lost again, on the next connection', async () => {
    const { db, calls } = flakyDatabase([lostConnection()]);
    await expect(readBack(db, async () => 'the row')).resolves.toBe('the row');
    expect(calls()).toBe(2);
  });

  it('throws a definite failure as it is, never "no row"', async () => {
    const failure = errorReply();
    const { db, calls } = flakyDatabase([failure]);
    await expect(readBack(db, async () => 'unused')).rejects.toBe(failure);
    expect(calls()).toBe(1);
  });

  it('throws the last lost answer when every attempt lost it', async () => {
    const last = lostConnection();
    const { db, calls } = flakyDatabase([lostConnection(), lostConnection(), last]);
    await expect(readBack(db, async () => 'unused')).rejects.toBe(last);
    expect(calls()).toBe(3);
  });
});
