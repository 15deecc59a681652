import { Module } from '@nestjs/common';
import { CurrentLock } from './current-lock';
import { DISTRIBUTED_LOCK } from './distributed-lock.constants';
import { ConfigurableDistributedLockModule } from './distributed-lock.module-definition';
import { distributedLockProviders } from './distributed-lock.providers';
import { DistributedLockService } from './distributed-lock.service';

/**
 * Distributed locks for a Nest application: `DistributedLockService`, `CurrentLock` and the
 * `@WithLock` decorator, global by default.
 *
 * ```ts
 * DistributedLockModule.forRootAsync({
 *   inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ redisFactory: () => new Redis(config.get('REDIS_URL')), defaultTtlMs: 5000 }),
 * })
 * ```
 */
@Module({
  providers: [...distributedLockProviders, DistributedLockService, CurrentLock],
  exports: [DistributedLockService, CurrentLock, DISTRIBUTED_LOCK],
})
export class DistributedLockModule extends ConfigurableDistributedLockModule {}
