import { judgeReplication, ReplicationRow, shouldWarn } from './replication-state';

// What a primary with Patroni's synchronous_mode reports to a pg_monitor member.
const patroniSync: ReplicationRow = {
  inRecovery: false,
  standbyNames: 'patroni-2',
  synchronousCommit: 'on',
  standbys: 2,
  synchronous: 1,
  hidden: 0,
};

describe('judgeReplication', () => {
  it('is sync only when a standby is synchronous, named, and commits wait for it', () => {
    expect(judgeReplication(patroniSync)).toMatchObject({ state: 'sync', standbys: 2, synchronousStandbys: 1 });
    expect(judgeReplication({ ...patroniSync, synchronousCommit: 'remote_apply' }).state).toBe('sync');
    // The standby is synchronous, but this session's commits return before it confirms them.
    expect(judgeReplication({ ...patroniSync, synchronousCommit: 'local' })).toMatchObject({
      state: 'async',
      detail: expect.stringContaining('synchronous_commit is local'),
    });
  });

  it('is async with standbys none of which is synchronous (a failover can lose acknowledged orders)', () => {
    expect(judgeReplication({ ...patroniSync, standbyNames: '', synchronous: 0 })).toMatchObject({
      state: 'async',
      detail: expect.stringContaining('can lose acknowledged orders'),
    });
  });

  it('is none on a single server, and says when commits wait for a standby that is not there', () => {
    const single = {
      inRecovery: false,
      standbyNames: '',
      synchronousCommit: 'on',
      standbys: 0,
      synchronous: 0,
      hidden: 0,
    };
    expect(judgeReplication(single)).toMatchObject({ state: 'none', standbys: 0 });
    expect(judgeReplication({ ...single, standbyNames: '*' }).detail).toContain("synchronous_standby_names is '*'");
  });

  it('is unknown when the role may not read the standbys (no pg_monitor) or the server is a standby', () => {
    expect(judgeReplication({ ...patroniSync, synchronous: 0, hidden: 2 })).toMatchObject({
      state: 'unknown',
      detail: expect.stringContaining('GRANT pg_monitor'),
    });
    expect(judgeReplication({ ...patroniSync, inRecovery: true }).state).toBe('unknown');
  });
});

describe('shouldWarn', () => {
  it('warns in production for anything but sync', () => {
    expect(['sync', 'async', 'none', 'unknown'].map((s) => shouldWarn(s as never, true))).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });

  it('stays quiet elsewhere on a single server, and warns of an asynchronous standby', () => {
    expect(['sync', 'async', 'none', 'unknown'].map((s) => shouldWarn(s as never, false))).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });
});
