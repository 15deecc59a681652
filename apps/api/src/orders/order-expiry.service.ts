import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { DistributedLockService, LockTimeoutError, LockUnavailableError } from '@app/distributed-lock';
import { DataSource } from 'typeorm';
import { StockUnit, stockLockKey } from '../stock/stock-keys';
import { HeldLock, WithLock, type Lock } from '@app/distributed-lock';
import { TypedConfigService } from '../config/app-config.module';
import { InventoryService } from '../inventory/inventory.service';
import { ProductCatalog } from '../inventory/product-catalog.service';
import { QuotaLedger } from './quota-ledger';
import { queryRows } from '../database/query-rows';
import { withConflictRetry } from '../database/statements';
import { reportBackgroundFailure } from '../metrics/background-failures';

const JOB = 'order-expiry';
const MAX_BATCHES_PER_RUN = 20;

/**
 * Expires unpaid orders past their deadline and puts their units back on sale. Every instance
 * schedules it; the job lock lets one run at a time. Work goes in bounded batches, one product
 * lock and one transaction per product of a batch.
 *
 * A run never fails as a whole: a unit whose lock or transaction fails (Redis or Postgres down,
 * the product busy) is reported (log line and background_failures_total) and left for the next
 * tick, and the other units go on. The timer's callback cannot reject.
 */
@Injectable()
export class OrderExpiryService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger(OrderExpiryService.name);
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private running?: Promise<unknown>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly locks: DistributedLockService,
    private readonly inventory: InventoryService,
    private readonly catalog: ProductCatalog,
    private readonly quota: QuotaLedger,
    private readonly scheduler: SchedulerRegistry,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.batchSize = config.get('orders', { infer: true }).expiryBatchSize;
    this.intervalMs = config.get('orders', { infer: true }).expiryIntervalMs;
  }

  onApplicationBootstrap(): void {
    const timer = setInterval(
      () => void this.tick().catch((error) => reportBackgroundFailure(this.log, JOB, 'tick', error)),
      this.intervalMs,
    );
    timer.unref();
    this.scheduler.addInterval(JOB, timer);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('interval', JOB)) this.scheduler.deleteInterval(JOB);
    await this.running;
  }

  async tick(): Promise<number> {
    if (this.running) return 0;
    const run = this.runExclusively();
    this.running = run;
    try {
      return await run;
    } finally {
      this.running = undefined;
    }
  }

  private async runExclusively(): Promise<number> {
    let holdsJobLock = false;
    try {
      return await this.locks.using(`job:${JOB}`, { ttlMs: 30_000, waitMs: 0, reentrant: false }, () => {
        holdsJobLock = true;
        return this.expireDue();
      });
    } catch (error) {
      // Only a refusal of the job lock itself means another instance is on it.
      if (!holdsJobLock && error instanceof LockTimeoutError) return 0;
      // Without Redis: the per-order UPDATE is safe to run twice, so every instance may run it.
      if (!holdsJobLock && error instanceof LockUnavailableError) return this.expireDue();
      reportBackgroundFailure(this.log, JOB, 'run', error);
      return 0;
    }
  }

  /** Expires everything due, batch after batch; returns how many orders expired. */
  async expireDue(): Promise<number> {
    let expired = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
      const due: { id: string; product_id: string; segment: number | null }[] = await this.db.query(
        `SELECT id, product_id, segment FROM orders WHERE status = 'PENDING_PAYMENT' AND expires_at <= now() ORDER BY expires_at LIMIT $1`,
        [this.batchSize],
      );
      if (!due.length) break;
      const byUnit = new Map<string, { unit: StockUnit; ids: string[] }>();
      for (const row of due) {
        const unit = { productId: String(row.product_id), segment: row.segment };
        const entry = byUnit.get(stockLockKey(unit)) ?? { unit, ids: [] };
        entry.ids.push(String(row.id));
        byUnit.set(stockLockKey(unit), entry);
      }
      let failed = 0;
      for (const { unit, ids } of byUnit.values()) {
        try {
          expired += await this.expireForUnit({ unit, orderIds: ids });
        } catch (error) {
          failed++;
          reportBackgroundFailure(this.log, JOB, `${stockLockKey(unit)}, ${ids.length} order(s)`, error);
        }
      }
      // What failed is due again at once; leave it to the next tick rather than spin on it.
      if (failed || due.length < this.batchSize) break;
    }
    if (expired) this.log.log(`expired ${expired} unpaid order(s)`);
    return expired;
  }

  /** Under the unit's stock lock (`stock:<productId>`, or a segment's): its units come back. */
  @WithLock((target: UnitExpiry) => stockLockKey(target.unit), { reentrant: false, fenced: true })
  private async expireForUnit({ unit, orderIds }: UnitExpiry, @HeldLock() lock?: Lock): Promise<number> {
    const { productId } = unit;
    const fence = lock ? lock.fence : null;
    // Rows in the one lock order (see the row-lock-order migration): the orders by id, the
    // stock row, then the quota rows by user id. A stale fence fails the whole transaction.
    const result = await withConflictRetry(() =>
      this.db.transaction(async (tx) => {
        const rows = await queryRows<{ user_id: string; quantity: number }>(
          tx,
          `UPDATE orders SET status = 'EXPIRED', closed_at = now()
            WHERE id IN (SELECT id FROM orders WHERE id = ANY($1::bigint[]) AND status = 'PENDING_PAYMENT' AND expires_at <= now() ORDER BY id FOR UPDATE)
            RETURNING user_id, quantity`,
          [orderIds],
        );
        if (!rows.length) return { count: 0, stock: undefined };
        const total = rows.reduce((sum, row) => sum + row.quantity, 0);
        const stock = await this.inventory.giveBack(tx, unit, total, fence);
        const perUser = new Map<string, number>();
        for (const row of rows) perUser.set(row.user_id, (perUser.get(row.user_id) ?? 0) + row.quantity);
        await this.quota.releaseMany(tx, productId, perUser);
        return { count: rows.length, stock };
      }),
    ).catch(async (error: unknown) => {
      await this.inventory.repairAfterStaleFence(unit, lock, error);
      throw error;
    });
    if (result.stock !== undefined) await this.catalog.afterUnitChange(unit, result.stock);
    return result.count;
  }
}

/** Expired orders of one stock unit, returned under that unit's lock. */
interface UnitExpiry {
  unit: StockUnit;
  orderIds: string[];
}
