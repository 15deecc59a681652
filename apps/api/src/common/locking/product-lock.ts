import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { CurrentLock, WithLock } from '@app/distributed-lock';
import { TypedConfigService } from '../../config/app-config.module';
import { LockFallback } from '../../config/app-config';
import { Fence, runWithFallback } from './run-with-fallback';

export type { Fence } from './run-with-fallback';

/**
 * Runs work under a product's lock (`stock:<productId>`), handing it the fencing token that the
 * stock UPDATE checks; falls back per LOCK_FALLBACK when Redis is unreachable.
 */
@Injectable()
export class ProductLock {
  private readonly fallback: LockFallback;

  constructor(
    private readonly current: CurrentLock,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.fallback = config.get('lock', { infer: true }).fallback;
  }

  run<T>(productId: string, work: (fence: Fence) => Promise<T>): Promise<T> {
    return runWithFallback(this.fallback, 'product lock', (tracked) => this.underLock({ productId, work: tracked }), work);
  }

  @WithLock('stock:<productId>')
  private async underLock<T>(input: { productId: string; work: (fence: Fence) => Promise<T> }): Promise<T> {
    return input.work(this.current.fence);
  }
}
