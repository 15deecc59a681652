import Redis from 'ioredis';
import { DistributedLock } from '@app/distributed-lock';
import { eventually, sleep, withPg } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { check, Verdict } from './support/checks';
import { saveResult } from './support/results';
import { Recorder } from './support/traffic';

jest.setTimeout(120_000);

const TTL_MS = 600;
const RUN_MS = 8000;
const AFTER_RESTART_SECTIONS = 5;

interface Section {
  holder: string;
  fence: number;
  enteredMs: number;
  leftMs: number;
  /** The lease was reported lost (signal aborted) before the holder left. */
  lost: boolean;
  /** Postgres accepted the holder's fenced write. */
  committed: boolean;
}

/**
 * The lock itself under faults, not only Postgres's guards: holders in three processes' worth of
 * clients write a fenced row while Redis is paused past the lease and then restarted empty.
 * Every overlap of two critical sections is counted; each must involve a holder whose lease was
 * lost (and reported), a holder whose lease held must never be refused by the fence, and fences
 * must keep rising across the empty restart.
 */
describe('chaos 11: lock overlaps counted under faults', () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let clients: Redis[] = [];
  let locks: DistributedLock[] = [];

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    await withPg(db.url, (pg) => pg.query('CREATE TABLE fenced (id int PRIMARY KEY, fence bigint NOT NULL, writes int NOT NULL); INSERT INTO fenced VALUES (1, 0, 0)'));
    // Clients as the app makes them: fail fast while Redis is away, reconnect in the background.
    clients = [0, 1, 2].map(() => redis.client({ enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 300, autoResendUnfulfilledCommands: false, retryStrategy: () => 100 }));
    clients.forEach((c) => c.on('error', () => undefined));
    locks = clients.map((c) => new DistributedLock(c, { defaultTtlMs: TTL_MS }));
  });

  afterAll(async () => {
    await Promise.all(locks.map((l) => l.close().catch(() => undefined)));
    clients.forEach((c) => c.disconnect());
    await redis?.stop();
    await db?.drop();
  });

  it('lets two holders act at once only when one lease was lost, and the fence refuses only lost holders', async () => {
    const rec = new Recorder();
    const sections: Section[] = [];
    const failures: Record<string, number> = {};
    const faults: string[] = [];
    let stop = false;
    // Holders inside a section while Redis is paused stay in it until the pause ends, as a holder
    // blocked on something else would: their lease cannot be renewed, so the pause must cost one.
    let redisPaused = false;
    let inSection = 0;
    const stayWhilePaused = async () => {
      while (redisPaused) await sleep(20);
    };
    const started = Date.now();
    const at = () => Date.now() - started;

    const holderLoop = async (lock: DistributedLock, holder: string) => {
      while (!stop) {
        try {
          await lock.using('stock:s11', { ttlMs: TTL_MS, waitMs: 1500 }, async (signal, held) => {
            const enteredMs = at();
            inSection += 1;
            try {
              // Now and then a holder stalls past its lease, as a long GC pause would make it.
              await sleep(Math.random() < 0.1 ? TTL_MS * 1.5 : 5 + Math.random() * 20);
              await stayWhilePaused();
              const committed = await withPg(db.url, async (pg) => (await pg.query('UPDATE fenced SET fence = $1, writes = writes + 1 WHERE id = 1 AND fence <= $1', [held.fence])).rowCount === 1);
              await stayWhilePaused();
              sections.push({ holder, fence: held.fence, enteredMs, leftMs: at(), lost: signal.aborted, committed });
            } finally {
              inSection -= 1;
            }
          });
        } catch (error) {
          const name = (error as Error).name || 'Error';
          failures[name] = (failures[name] ?? 0) + 1;
          await sleep(50);
        }
      }
    };
    const loops = locks.flatMap((lock, i) => [0, 1].map((j) => holderLoop(lock, `p${i}w${j}`)));

    await sleep(1500);
    while (inSection === 0) await sleep(1); // pause while some holder is inside its section
    redisPaused = true;
    redis.pause();
    faults.push(`SIGSTOP redis for ${TTL_MS * 2} ms (lease ${TTL_MS} ms) at t=${(at() / 1000).toFixed(1)} s, with a holder inside its section`);
    await sleep(TTL_MS * 2);
    redis.resume();
    redisPaused = false;
    await sleep(2000);
    await redis.kill();
    faults.push(`SIGKILL redis at t=${(at() / 1000).toFixed(1)} s, restarted empty 500 ms later`);
    await sleep(500);
    await redis.restart();
    // Sections after the restart are counted from this moment, not back from the end of the run
    // (stopping the holders takes a variable while).
    const restartedAt = at();
    const afterRestart = () => sections.filter((s) => s.enteredMs >= restartedAt);
    await sleep(Math.max(0, RUN_MS - at()));
    // A slow machine may need longer than RUN_MS to get through a few sections on the new server.
    await eventually(async () => afterRestart().length > AFTER_RESTART_SECTIONS, 10_000, 50, 'sections after the restart').catch(() => undefined);
    stop = true;
    await Promise.all(loops);

    const ordered = [...sections].sort((a, b) => a.enteredMs - b.enteredMs);
    const overlaps: [Section, Section][] = [];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = i + 1; j < ordered.length && ordered[j].enteredMs < ordered[i].leftMs; j++) overlaps.push([ordered[i], ordered[j]]);
    }
    const unexplained = overlaps.filter(([a, b]) => !a.lost && !b.lost);
    const refusedWhileValid = sections.filter((s) => !s.committed && !s.lost);
    const fencesRise = ordered.every((s, i) => i === 0 || s.fence > ordered[i - 1].fence || s.enteredMs - ordered[i - 1].enteredMs < 5);
    const writes = await withPg(db.url, async (pg) => Number((await pg.query('SELECT writes FROM fenced WHERE id = 1')).rows[0].writes));

    const lost = sections.filter((s) => s.lost).length;
    const verdicts: Verdict[] = [
      // Without a lost lease the other verdicts judge nothing: the pause must have cost some holder its lease.
      check('the fault took effect: some lease was lost (reported to its holder)', lost > 0, `${lost} section(s) whose lease was lost, ${sections.filter((s) => s.lost && !s.committed).length} of them refused by the fence`),
      check('sections ran before and after each fault', sections.length > 20 && afterRestart().length > AFTER_RESTART_SECTIONS, `${sections.length} sections, ${afterRestart().length} entered after the restart at t=${(restartedAt / 1000).toFixed(1)} s`),
      check('every overlap involves a lease reported lost', unexplained.length === 0, `${overlaps.length} overlap(s), ${unexplained.length} between two valid leases${unexplained.length ? `: ${JSON.stringify(unexplained[0])}` : ''}`),
      check('the fence refused only holders whose lease was lost', refusedWhileValid.length === 0, `${sections.filter((s) => !s.committed).length} refused, ${refusedWhileValid.length} of them with a valid lease`),
      check('fences rose in acquisition order, across the empty restart', fencesRise, `first ${ordered[0]?.fence}, last ${ordered[ordered.length - 1]?.fence}`),
      check('every accepted write counted once', writes === sections.filter((s) => s.committed).length, `${writes} writes in the row, ${sections.filter((s) => s.committed).length} accepted`),
    ];
    saveResult({
      id: 's11-lock-overlaps-under-faults',
      title: 'Lock overlaps counted under faults',
      setup: `3 lock clients x 2 holders, lease ${TTL_MS} ms with watchdog renewal, 10% of holders stall 1.5 leases, fenced UPDATE in Postgres; ${RUN_MS / 1000} s`,
      rec,
      faults,
      recovery: { sections: sections.length, overlaps: overlaps.length, 'leases lost': sections.filter((s) => s.lost).length, 'acquire failures': JSON.stringify(failures) },
      verdicts,
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
