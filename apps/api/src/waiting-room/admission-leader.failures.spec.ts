import { Logger } from '@nestjs/common';
import { LockTimeoutError } from '@app/distributed-lock';
import { AdmissionLeader } from './admission-leader.service';

/** A leader whose one step fails with `failure` (the job lock is had at once), and how often it ran. */
function leaderFailingWith(failure: unknown) {
  let steps = 0;
  const db = {
    query: async () => {
      steps++;
      throw failure;
    },
  };
  const locks = { using: (_key: string, _options: unknown, work: () => Promise<void>) => work() };
  const config = { get: () => ({ tickMs: 100 }) };
  const leader = new AdmissionLeader(
    db as never,
    locks as never,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
    config as never,
    1000,
  );
  return { leader, steps: () => steps };
}

describe('AdmissionLeader on a failed step', () => {
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('reads an unreachable Postgres as down: reported, and no step again until the backoff ends', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { leader, steps } = leaderFailingWith(down);
    await expect(leader.tick()).resolves.toBeUndefined();
    await expect(leader.tick()).resolves.toBeUndefined();
    expect(steps()).toBe(1);
  });

  it('does not read any other failure as a dependency down: it is thrown to the tick', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'stock')");
    const { leader, steps } = leaderFailingWith(bug);
    await expect(leader.tick()).rejects.toBe(bug);
    await expect(leader.tick()).rejects.toBe(bug);
    expect(steps()).toBe(2);
  });

  it('leaves the step to the instance that holds the job lock', async () => {
    const { leader, steps } = leaderFailingWith(undefined);
    Object.assign(leader, {
      locks: { using: () => Promise.reject(new LockTimeoutError('job:waiting-room-admission', 0)) },
    });
    await expect(leader.tick()).resolves.toBeUndefined();
    expect(steps()).toBe(0);
  });
});
