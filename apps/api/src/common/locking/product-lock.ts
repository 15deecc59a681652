import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { CurrentLock, DistributedLockService, WithLock } from '@app/distributed-lock';
import { DataSource } from 'typeorm';
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
    private readonly locks: DistributedLockService,
    @InjectDataSource() private readonly db: DataSource,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.fallback = config.get('lock', { infer: true }).fallback;
  }

  run<T>(productId: string, work: (fence: Fence) => Promise<T>): Promise<T> {
    return runWithFallback(this.fallback, 'product lock', (tracked) => this.underLock({ productId, work: tracked }), work);
  }

  /**
   * Called under the product lock when Postgres refused our fence as stale. If the lease is in
   * fact still ours, the refusal means Redis lost its fence counter (restarted empty) and now
   * hands out fences below the row's; lift the counter past the row's so the next holder's fence
   * is accepted. Returns whether it did. A truly stale holder (lease lost) changes nothing.
   */
  async repairFenceIfReset(productId: string): Promise<boolean> {
    const lock = this.current.find(`stock:${productId}`);
    if (!lock || lock.signal.aborted || !(await lock.extend().catch(() => false))) return false;
    const rows: { lock_fence: string }[] = await this.db.query('SELECT lock_fence FROM products WHERE id = $1', [productId]);
    if (!rows.length) return false;
    await this.locks.advanceFence(`stock:${productId}`, Number(rows[0].lock_fence));
    return true;
  }

  @WithLock('stock:<productId>')
  private async underLock<T>(input: { productId: string; work: (fence: Fence) => Promise<T> }): Promise<T> {
    return input.work(this.current.fence);
  }
}
