import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { CurrentLock, DistributedLockService, WithLock } from '@app/distributed-lock';
import { DataSource } from 'typeorm';
import { TypedConfigService } from '../../config/app-config.module';
import { LockFallback } from '../../config/app-config';
import { Fence, runWithFallback } from './run-with-fallback';

export type { Fence } from './run-with-fallback';

/** Where units of a product live: the product row, or one segment row of a segmented product. */
export interface StockUnit {
  productId: string;
  segment: number | null;
}

export const stockLockKey = (unit: StockUnit): string =>
  unit.segment === null ? `stock:${unit.productId}` : `stock:${unit.productId}:${unit.segment}`;

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

  /** Under the lock of one stock unit: the product's, or one segment's (`stock:<id>:<segment>`). */
  runUnit<T>(unit: StockUnit, work: (fence: Fence) => Promise<T>): Promise<T> {
    if (unit.segment === null) return this.run(unit.productId, work);
    const { productId, segment } = unit;
    return runWithFallback(this.fallback, 'segment lock', (tracked) => this.underSegmentLock({ productId, segment, work: tracked }), work);
  }

  /**
   * runUnit with this call's own bound on the lock wait: a purchase batch waits no longer than
   * its deadline allows, however long LOCK_WAIT_MS is.
   */
  runUnitWithin<T>(unit: StockUnit, waitMs: number, work: (fence: Fence) => Promise<T>): Promise<T> {
    const what = unit.segment === null ? 'product lock' : 'segment lock';
    return runWithFallback(this.fallback, what, (tracked) => this.locks.using(stockLockKey(unit), { waitMs }, () => tracked(this.current.fence)), work);
  }

  /** Under every segment's lock at once (one multi-key lock, taken in canonical order). */
  runAllSegments<T>(productId: string, segments: number, work: (fence: Fence) => Promise<T>): Promise<T> {
    const keys = Array.from({ length: segments }, (_, segment) => stockLockKey({ productId, segment }));
    return runWithFallback(this.fallback, 'segment locks', (tracked) => this.underLocks({ keys, work: tracked }), work);
  }

  /**
   * Called under the product lock when Postgres refused our fence as stale. If the lease is in
   * fact still ours, the refusal means the fence counter restarted below the row's (Redis lost it
   * and its clock was set back, or rows written by an older release whose counters started at 1);
   * lift the counter past the row's so the next holder's fence is accepted. Returns whether it
   * did. A truly stale holder (lease lost) changes nothing.
   */
  async repairFenceIfReset(unit: StockUnit): Promise<boolean> {
    const key = stockLockKey(unit);
    const lock = this.current.find(key);
    if (!lock || lock.signal.aborted || !(await lock.extend().catch(() => false))) return false;
    const rows: { lock_fence: string }[] =
      unit.segment === null
        ? await this.db.query('SELECT lock_fence FROM products WHERE id = $1', [unit.productId])
        : await this.db.query('SELECT max(lock_fence) AS lock_fence FROM product_segments WHERE product_id = $1', [unit.productId]);
    if (!rows.length || rows[0].lock_fence === null) return false;
    await this.locks.advanceFence(key, Number(rows[0].lock_fence));
    return true;
  }

  @WithLock('stock:<productId>')
  private async underLock<T>(input: { productId: string; work: (fence: Fence) => Promise<T> }): Promise<T> {
    return input.work(this.current.fence);
  }

  @WithLock('stock:<productId>:<segment>')
  private async underSegmentLock<T>(input: { productId: string; segment: number; work: (fence: Fence) => Promise<T> }): Promise<T> {
    return input.work(this.current.fence);
  }

  @WithLock((input: { keys: string[] }) => input.keys)
  private async underLocks<T>(input: { keys: string[]; work: (fence: Fence) => Promise<T> }): Promise<T> {
    return input.work(this.current.fence);
  }
}
