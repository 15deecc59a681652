// A process whose lock listeners or renewals fail, driven by a spec through argv:
//   <port> throwing-lost      every 'lost' listener throws; one lease is stolen, another kept
//   <port> throwing-extended  every 'extended' (and 'renewalFailed') listener throws
//   <port> sync-renewal       the backend's extend throws synchronously for 400 ms (less than the 900 ms lease)
//   <port> rejected-renewal   the backend's extend rejects (not a Redis error) for 400 ms (less than the 900 ms lease)
// It prints one JSON line: what happened to the leases, and every uncaught exception or unhandled
// rejection the process saw (with these handlers installed, such an error no longer exits it).
import Redis from 'ioredis';
import { SingleRedisBackend } from '../../src/core/backends/single-redis.backend';
import { DistributedLock } from '../../src/distributed-lock';

const [port, mode] = process.argv.slice(2);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const processFaults: string[] = [];
process.on('uncaughtException', (error) => processFaults.push(`uncaughtException: ${String(error)}`));
process.on('unhandledRejection', (reason) => processFaults.push(`unhandledRejection: ${String(reason)}`));

/** Makes the backend's extend fail for `ms`, then restores it. */
async function breakExtendFor(ms: number, how: 'throw' | 'reject'): Promise<void> {
  const original = SingleRedisBackend.prototype.extend;
  SingleRedisBackend.prototype.extend = function brokenExtend() {
    if (how === 'throw') throw new TypeError('extend threw synchronously');
    return Promise.reject(new TypeError('extend rejected'));
  } as typeof original;
  await sleep(ms);
  SingleRedisBackend.prototype.extend = original;
}

async function main(): Promise<void> {
  const redis = new Redis(Number(port), '127.0.0.1', { maxRetriesPerRequest: 1 });
  const locks = new DistributedLock(redis);
  const extendedAfterFault: string[] = [];
  let faultAt = Number.POSITIVE_INFINITY;
  locks.on('extended', (e) => {
    if (performance.now() > faultAt) extendedAfterFault.push(e.key);
  });
  if (mode === 'throwing-lost') {
    locks.on('lost', () => { throw new Error('a throwing lost listener'); }); // prettier-ignore
    // A rejecting listener is the fault under test; safe: emitSafely (core/safe-emit.ts) catches its rejection.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    locks.on('lost', async () => { throw new Error('a rejecting lost listener'); }); // prettier-ignore
  }
  if (mode === 'throwing-extended') {
    locks.on('extended', () => { throw new Error('a throwing extended listener'); }); // prettier-ignore
    locks.on('renewalFailed', () => { throw new Error('a throwing renewalFailed listener'); }); // prettier-ignore
  }
  const work = (key: string, ms: number) =>
    locks
      .using(key, { ttlMs: 900 }, () => sleep(ms))
      .then(
        () => 'completed',
        (error: Error) => error.name,
      );
  const kept = work('kept', 2000);
  const victim = mode === 'throwing-lost' ? work('victim', 2000) : Promise.resolve('none');
  await sleep(150);
  faultAt = performance.now();
  if (mode === 'throwing-lost') await redis.set('lock:{victim}', 'someone-else', 'PX', 10_000);
  if (mode === 'sync-renewal') await breakExtendFor(400, 'throw');
  if (mode === 'rejected-renewal') await breakExtendFor(400, 'reject');
  const [keptOutcome, victimOutcome] = await Promise.all([kept, victim]);
  await sleep(50);
  process.stdout.write(
    `${JSON.stringify({ keptOutcome, victimOutcome, keptRenewalsAfterFault: extendedAfterFault.filter((k) => k === 'kept').length, processFaults })}\n`,
  );
  await locks.close();
  redis.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
