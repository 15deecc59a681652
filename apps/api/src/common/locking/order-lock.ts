import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DistributedLockService } from '@app/distributed-lock';
import { TypedConfigService } from '../../config/app-config.module';
import { LockFallback } from '../../config/app-config';
import { runWithFallback } from './run-with-fallback';

/**
 * Serialises pay and cancel of one order (`order:<orderId>`); falls back per LOCK_FALLBACK.
 * Not re-entrant, like every lock of the app (see ProductLock).
 */
@Injectable()
export class OrderLock {
  private readonly fallback: LockFallback;

  constructor(
    private readonly locks: DistributedLockService,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.fallback = config.get('lock', { infer: true }).fallback;
  }

  run<T>(orderId: string, work: () => Promise<T>): Promise<T> {
    return runWithFallback(this.fallback, 'order lock', (tracked) => this.locks.using(`order:${orderId}`, { reentrant: false }, () => tracked(null)), () => work());
  }
}
