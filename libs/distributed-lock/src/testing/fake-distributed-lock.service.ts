import { Injectable } from '@nestjs/common';
import { DistributedLockService } from '../distributed-lock.service';
import { NEST_SELF_DECLARED_DEPS_METADATA } from '../nest-metadata';
import { InMemoryDistributedLock } from './in-memory-distributed-lock';

/**
 * A `DistributedLockService` over an in-memory lock, for consumers' unit tests: provide it as
 * `{ provide: DistributedLockService, useClass: FakeDistributedLockService }` (plus `CurrentLock`)
 * and `@WithLock` methods run with real exclusion and reentrancy, without Redis or metrics.
 */
@Injectable()
export class FakeDistributedLockService extends DistributedLockService {
  constructor() {
    super(new InMemoryDistributedLock(), { metrics: false });
  }

  /** The in-memory lock behind this fake, e.g. to assert `isHeld('stock:42')`. */
  get memory(): InMemoryDistributedLock {
    return this.locks as InMemoryDistributedLock;
  }
}

// Nest would otherwise inherit the parent's @Inject(...) tokens and look for a real lock and
// options; it offers no public way to clear them.
Reflect.defineMetadata(NEST_SELF_DECLARED_DEPS_METADATA, [], FakeDistributedLockService);
