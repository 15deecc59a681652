import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DistributedLockService, Lock } from '@app/distributed-lock';
import { DataSource } from 'typeorm';
import { StockUnit, stockLockKey } from './stock-keys';
import { isRedisUnavailable } from '../common/errors/dependency-errors';

/**
 * The fence side of a product's lock. The locks themselves are taken by `@WithLock` on the
 * methods that write stock (StockService, InventoryService, OrdersService, OrderExpiryService),
 * each with `reentrant: false` and its fence handed to the method (`@HeldLock()`): no path
 * re-enters a lock, so none records a scope for re-entry (on Node 24 such a scope measured inside
 * noise; see docs/BENCHMARKS.md, "The lock context on Node 24").
 */
@Injectable()
export class FenceRepair {
  constructor(
    private readonly locks: DistributedLockService,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /**
   * Called under the product lock when Postgres refused our fence as stale. If the lease is in
   * fact still ours, the refusal means the fence counter restarted below the row's (Redis lost it
   * and its clock was set back, or rows written by an older release whose counters started at 1);
   * lift the counter past the row's so the next holder's fence is accepted. Returns whether it
   * did. A truly stale holder (lease lost) changes nothing.
   */
  async repairFenceIfReset(unit: StockUnit, lock: Lock | undefined): Promise<boolean> {
    if (!lock || lock.signal.aborted || !(await lock.extend().catch(unlessRedisDown))) return false;
    const rows: { lock_fence: string }[] =
      unit.segment === null
        ? await this.db.query('SELECT lock_fence FROM products WHERE id = $1', [unit.productId])
        : await this.db.query('SELECT max(lock_fence) AS lock_fence FROM product_segments WHERE product_id = $1', [
            unit.productId,
          ]);
    if (!rows.length || rows[0].lock_fence === null) return false;
    await this.locks.advanceFence(stockLockKey(unit), Number(rows[0].lock_fence));
    return true;
  }
}

/** An extension Redis could not take: the lease is not known to be ours (any other failure is thrown). */
function unlessRedisDown(error: unknown): false {
  if (!isRedisUnavailable(error)) throw error;
  return false;
}
