import Redlock from 'redlock';
import { Redlock as SesameRedlock } from '@sesamecare-oss/redlock';
import { CommandTally, countedClient } from '../redis-clients';
import { loadOurs, OursLocker } from './ours';
import { RawFencedFloorLocker } from './raw-fenced-floor';
import { RawFloorLocker } from './raw-floor';
import { RedlockConstructor, RedlockFamilyLocker } from './redlock-family';
import { SemaphoreMutexLocker } from './semaphore-mutex';
import { ContenderSpec, Locker } from './types';

/** Builds a contender on its own counted connection to the bench's Redis. */
export function createLocker(spec: ContenderSpec, port: number, tally: CommandTally): Locker {
  const redis = countedClient(port, tally);
  switch (spec.kind) {
    case 'raw':
      return new RawFloorLocker(redis);
    case 'rawFenced':
      return new RawFencedFloorLocker(redis);
    case 'redlock':
      return new RedlockFamilyLocker(Redlock as unknown as RedlockConstructor, redis, spec.settings);
    case 'sesame':
      return new RedlockFamilyLocker(SesameRedlock as unknown as RedlockConstructor, redis, spec.settings);
    case 'semaphore':
      return new SemaphoreMutexLocker(redis, spec.settings);
    case 'ours': {
      const Ctor = loadOurs();
      if (!Ctor) throw new Error('@app/distributed-lock does not export DistributedLock yet');
      return new OursLocker(Ctor, redis, spec.settings);
    }
  }
}
