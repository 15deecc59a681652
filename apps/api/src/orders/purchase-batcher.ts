import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Histogram, register } from 'prom-client';
import type { Lock } from '@app/distributed-lock';
import { HotStatements } from '../database/hot-statements';
import { Fence, ProductLock, StockUnit, stockLockKey } from '../common/locking/product-lock';
import { TypedConfigService } from '../config/app-config.module';
import { InventoryService } from '../inventory/inventory.service';
import { withConflictRetry } from '../database/conflict-retry';
import { monotonicNow, PurchaseAdmission } from './admission/purchase-admission';
import { deadlineRefusal, DeadlineSpentError } from './admission/deadline-refusal';
import { UnitLine, Waiting } from './admission/unit-line';

export type BatchOutcomeKind = 'CREATED' | 'SOLD_OUT' | 'PER_USER_LIMIT' | 'DUPLICATE_KEY' | 'NOT_FOUND' | 'STALE_FENCE';

export interface BatchItem {
  userId: string;
  quantity: number;
  idempotencyKey: string | null;
  requestHash: string | null;
}

export interface BatchOutcome {
  outcome: BatchOutcomeKind;
  orderId: string | null;
  createdAt: Date | null;
  expiresAt: Date | null;
  stockLeft: number | null;
}

interface Pending extends BatchItem, Waiting {
  resolve(outcome: BatchOutcome): void;
}

// lock_timeout is read each time a lock wait begins, so setting it in an argument (evaluated before
// the function body runs) bounds every row-lock wait of the statement by the batch's deadline;
// is_local confines it to the statement's own transaction. A cancelled statement commits nothing.
const SQL =
  'SELECT idx, outcome, order_id, created_at, expires_at, stock_left FROM purchase_batch(' +
  "CASE WHEN set_config('lock_timeout', $9::text, true) IS NULL THEN NULL ELSE $1::bigint END, $2, $3, $4, $5, $6, $7, $8) ORDER BY idx";

/** What is left of a batch's time for its statement's lock waits; none left runs nothing. */
function timeLeftMs(endsBy: number): number {
  const left = Math.floor(endsBy - monotonicNow());
  if (left < 1) throw new DeadlineSpentError();
  return left;
}

/**
 * Request coalescing on hot products: purchases of one product that arrive in this process while
 * its lock is held (or being waited for) queue up, and the next holder serves them all with one
 * lock hold and one statement (`purchase_batch`), each purchase still its own all-or-nothing unit.
 * A lone purchase is a batch of one, so there is one code path. The unit is the product, or one
 * segment of a segmented product (each segment has its own lock and queue).
 *
 * Every purchase has a deadline (PURCHASE_DEADLINE_MS from its arrival). PurchaseAdmission queues
 * only what can be answered by then; a batch waits for the lock and for Postgres' row locks no
 * longer than its oldest purchase's deadline allows, and is answered 503 OVERLOADED with nothing
 * committed when that runs out.
 */
@Injectable()
export class PurchaseBatcher {
  private readonly paymentTtlS: number;
  private readonly lockWaitMs: number;
  private readonly batchSizes: Histogram =
    (register.getSingleMetric('purchase_batch_size') as Histogram | undefined) ??
    new Histogram({ name: 'purchase_batch_size', help: 'Purchases served per lock hold', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256] });

  constructor(
    private readonly statements: HotStatements,
    private readonly productLock: ProductLock,
    private readonly inventory: InventoryService,
    private readonly admission: PurchaseAdmission,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.paymentTtlS = config.get('orders', { infer: true }).paymentTtlS;
    this.lockWaitMs = config.get('lock', { infer: true }).waitMs;
  }

  /** Queues the purchase (or refuses it at once with OVERLOADED); `arrivedAt` is on monotonicNow's clock. */
  submit(unit: StockUnit, item: BatchItem, arrivedAt = monotonicNow()): Promise<BatchOutcome> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { ...item, arrivedAt, deadline: arrivedAt + this.admission.deadlineMs, resolve, reject };
      const line = this.admission.admit(stockLockKey(unit), pending);
      if (!line.draining) void this.drain(unit, line);
    });
  }

  private async drain(unit: StockUnit, line: UnitLine<Pending>): Promise<void> {
    line.draining = true;
    for (let batch = this.admission.take(line); batch.length; batch = this.admission.take(line)) await this.serve(unit, line, batch);
    line.draining = false;
    this.admission.settle();
  }

  /** One lock hold for the batch, bounded by its oldest purchase's deadline (the batch is FIFO). */
  private async serve(unit: StockUnit, line: UnitLine<Pending>, batch: Pending[]): Promise<void> {
    const startedAt = monotonicNow();
    const endsBy = batch[0].deadline - this.admission.answerMarginMs();
    const lockWaitMs = Math.max(0, Math.min(this.lockWaitMs, Math.floor(endsBy - startedAt)));
    line.inFlight = { size: batch.length, startedAt, endsBy };
    try {
      const outcomes = await this.productLock.runUnitWithin(unit, lockWaitMs, (fence, lock) => this.execute(unit, batch, fence, endsBy, lock));
      line.model.observe(batch.length, monotonicNow() - startedAt);
      batch.forEach((pending, i) => pending.resolve(outcomes[i]));
    } catch (error) {
      const reason = deadlineRefusal(error, lockWaitMs < this.lockWaitMs);
      if (reason) {
        this.admission.refuse(batch, reason, line);
      } else batch.forEach((pending) => pending.reject(error));
    } finally {
      line.inFlight = undefined;
    }
  }

  /**
   * Runs under the unit's lock: one statement (atomic, so run again after a deadlock), then the
   * sold-out flag and cache follow the stock. That bookkeeping is best effort and never throws:
   * once the statement has committed, its buyers are answered with their orders.
   */
  private async execute(unit: StockUnit, batch: BatchItem[], fence: Fence, endsBy: number, lock?: Lock): Promise<BatchOutcome[]> {
    this.batchSizes.observe(batch.length);
    const rows = await withConflictRetry(() => this.statements.run<{ outcome: BatchOutcomeKind; order_id: string | null; created_at: Date | null; expires_at: Date | null; stock_left: number | null }>(
      'purchase_batch',
      SQL,
      [
        unit.productId,
        unit.segment,
        fence,
        batch.map((b) => b.userId),
        batch.map((b) => b.quantity),
        batch.map((b) => b.idempotencyKey),
        batch.map((b) => b.requestHash),
        this.paymentTtlS,
        `${timeLeftMs(endsBy)}ms`, // taken again by a retry: the deadline does not move
      ]));
    if (fence !== null && rows[0]?.outcome === 'STALE_FENCE') await this.productLock.repairFenceIfReset(unit, lock);
    const last = rows[rows.length - 1];
    if (last && last.stock_left !== null && last.outcome !== 'STALE_FENCE') {
      const changed = rows.some((r) => r.outcome === 'CREATED');
      if (changed || last.stock_left === 0) await this.inventory.afterUnitChange(unit, last.stock_left);
    }
    return rows.map((r) => ({ outcome: r.outcome, orderId: r.order_id === null ? null : String(r.order_id), createdAt: r.created_at, expiresAt: r.expires_at, stockLeft: r.stock_left }));
  }
}
