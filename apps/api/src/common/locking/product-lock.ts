import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DistributedLockService, Lock } from '@app/distributed-lock';
import { DataSource } from 'typeorm';
import { TypedConfigService } from '../../config/app-config.module';
import { LockFallback } from '../../config/app-config';
import { LockedWork, runWithFallback } from './run-with-fallback';

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
 *
 * Every lock of the app is taken with `reentrant: false` and its fence handed over explicitly:
 * no path re-enters a lock, and a scope recorded for re-entry would switch on Node 20's
 * AsyncLocalStorage promise hooks for every promise of the process (7 to 8% of a hot purchase's
 * CPU profile when they were on).
 */
@Injectable()
export class ProductLock {
  private readonly fallback: LockFallback;

  constructor(
    private readonly locks: DistributedLockService,
    @InjectDataSource() private readonly db: DataSource,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.fallback = config.get('lock', { infer: true }).fallback;
  }

  run<T>(productId: string, work: LockedWork<T>): Promise<T> {
    return this.runUnit({ productId, segment: null }, work);
  }

  /** Under the lock of one stock unit: the product's, or one segment's (`stock:<id>:<segment>`). */
  runUnit<T>(unit: StockUnit, work: LockedWork<T>): Promise<T> {
    return this.under(unitLockName(unit), stockLockKey(unit), {}, work);
  }

  /**
   * runUnit with this call's own bound on the lock wait: a purchase batch waits no longer than
   * its deadline allows, however long LOCK_WAIT_MS is.
   */
  runUnitWithin<T>(unit: StockUnit, waitMs: number, work: LockedWork<T>): Promise<T> {
    return this.under(unitLockName(unit), stockLockKey(unit), { waitMs }, work);
  }

  /** Under every segment's lock at once (one multi-key lock, taken in canonical order). */
  runAllSegments<T>(productId: string, segments: number, work: LockedWork<T>): Promise<T> {
    const keys = Array.from({ length: segments }, (_, segment) => stockLockKey({ productId, segment }));
    return this.under('segment locks', keys, {}, work);
  }

  /**
   * Called under the product lock when Postgres refused our fence as stale. If the lease is in
   * fact still ours, the refusal means the fence counter restarted below the row's (Redis lost it
   * and its clock was set back, or rows written by an older release whose counters started at 1);
   * lift the counter past the row's so the next holder's fence is accepted. Returns whether it
   * did. A truly stale holder (lease lost) changes nothing.
   */
  async repairFenceIfReset(unit: StockUnit, lock: Lock | undefined): Promise<boolean> {
    if (!lock || lock.signal.aborted || !(await lock.extend().catch(() => false))) return false;
    const rows: { lock_fence: string }[] =
      unit.segment === null
        ? await this.db.query('SELECT lock_fence FROM products WHERE id = $1', [unit.productId])
        : await this.db.query('SELECT max(lock_fence) AS lock_fence FROM product_segments WHERE product_id = $1', [unit.productId]);
    if (!rows.length || rows[0].lock_fence === null) return false;
    await this.locks.advanceFence(stockLockKey(unit), Number(rows[0].lock_fence));
    return true;
  }

  private under<T>(what: string, key: string | string[], opts: { waitMs?: number }, work: LockedWork<T>): Promise<T> {
    return runWithFallback(this.fallback, what, (tracked) => this.locks.using(key, { ...opts, reentrant: false }, (_signal, lock) => tracked(lock.fence, lock)), work);
  }
}

const unitLockName = (unit: StockUnit): string => (unit.segment === null ? 'product lock' : 'segment lock');
