import { RedisFixture } from '../test/redis-fixture';
import { spawnWorker } from '../test/spawn-worker';

jest.setTimeout(30_000);

interface Report {
  keptOutcome: string;
  victimOutcome: string;
  keptRenewalsAfterFault: number;
  processFaults: string[];
}

/**
 * Listeners and renewals that fail must not stop the watchdog or reach the process as an uncaught
 * exception or unhandled rejection (which would exit a Node process by default). Each case runs in
 * its own process against a real Redis, with a 900 ms lease kept by the watchdog for 2 s (renewed every 300 ms), so the
 * lease survives only if renewals go on after the fault.
 */
describe('DistributedLock: faults in listeners and renewals', () => {
  let redis: RedisFixture;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  afterAll(() => redis.stop());

  const run = async (mode: string): Promise<Report> => {
    const worker = spawnWorker([redis.server.port, mode], 'listener-fault-worker.ts');
    const line = await worker.nextLine();
    expect(await worker.exited).toBe(0);
    return JSON.parse(line) as Report;
  };

  it('keeps renewing other leases when a lost listener throws or rejects, and the process sees no error', async () => {
    const report = await run('throwing-lost');
    expect(report.victimOutcome).toBe('LockLostError');
    expect(report.keptOutcome).toBe('completed');
    expect(report.keptRenewalsAfterFault).toBeGreaterThanOrEqual(3);
    expect(report.processFaults).toEqual([]);
  });

  it('keeps renewing when every extended and renewalFailed listener throws', async () => {
    const report = await run('throwing-extended');
    expect(report.keptOutcome).toBe('completed');
    expect(report.keptRenewalsAfterFault).toBeGreaterThanOrEqual(3);
    expect(report.processFaults).toEqual([]);
  });

  it('goes on renewing after a renewal that threw synchronously', async () => {
    const report = await run('sync-renewal');
    expect(report.keptOutcome).toBe('completed');
    expect(report.keptRenewalsAfterFault).toBeGreaterThanOrEqual(2);
    expect(report.processFaults).toEqual([]);
  });

  it('goes on renewing after a renewal that rejected with an unexpected error', async () => {
    const report = await run('rejected-renewal');
    expect(report.keptOutcome).toBe('completed');
    expect(report.keptRenewalsAfterFault).toBeGreaterThanOrEqual(2);
    expect(report.processFaults).toEqual([]);
  });
});
