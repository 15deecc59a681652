import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { DistributedLockService, LockTimeoutError } from '@app/distributed-lock';
import { DataSource } from 'typeorm';
import { TypedConfigService } from '../config/app-config.module';
import { PRODUCT_SELECT, ProductRow } from '../inventory/product.view';
import { isDatabaseUnavailable, isRedisUnavailable } from '../common/errors/dependency-errors';
import { reportBackgroundFailure } from '../metrics/background-failures';
import { InjectPurchaseDeadlineMs } from '../config/purchase-deadline';
import { PurchaseBatches } from '../purchase-batches/purchase-batches.service';
import { automaticRate } from './admission-rate';
import { rankPreQueue } from './fair-order';
import { QueueStore } from './queue-store';
import { SaleDraws } from '../sale-audit/sale-draws.service';
import { WaitingRoomMetrics } from './waiting-room.metrics';
import { WaitingRoomSettings } from '../sale-terms/waiting-room-settings';

const JOB = 'waiting-room-admission';
/** With no sale open or about to open, or after a failed step, an instance looks again only this much later. */
const IDLE_BACKOFF_MS = 1000;
const LEASE_MS = 3000;
// Sales about to start are listed too, so that an idle instance never starts admitting one late.
const OPEN_SALES = `${PRODUCT_SELECT} WHERE p.waiting_room IS NOT NULL AND (p.sale_starts_at IS NULL OR p.sale_starts_at <= now() + interval '${IDLE_BACKOFF_MS * 2} milliseconds') AND (p.sale_ends_at IS NULL OR p.sale_ends_at > now())`;
const STOCK_OF = `${PRODUCT_SELECT} WHERE p.id = ANY($1::bigint[])`;

type Sale = Pick<ProductRow, 'id' | 'segments' | 'per_user_limit' | 'sale_starts_at'> & {
  waiting_room: WaitingRoomSettings;
};

/**
 * Admits buyers. Every instance schedules the step; a job lock lets one run it at a time (the
 * order-expiry job's pattern), and the step itself is one script per product that advances the
 * serving counter, so admission follows queue order exactly whichever instance runs it.
 *
 * Per open sale: close the pre-queue and shuffle it (once), read `bought` then the stock still
 * for sale from Postgres, then admit up to the pace, the stock not covered by outstanding
 * admissions, and the queue. Without Redis nothing is admitted (nor bought): the step waits.
 */
@Injectable()
export class AdmissionLeader implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger(AdmissionLeader.name);
  private readonly tickMs: number;
  /** Admissions stay counted this long past expiry: a purchase let in just before expiry commits within it. */
  private readonly graceMs: number;
  private running?: Promise<unknown>;
  private idleUntil = 0;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly locks: DistributedLockService,
    private readonly store: QueueStore,
    private readonly batches: PurchaseBatches,
    private readonly metrics: WaitingRoomMetrics,
    private readonly scheduler: SchedulerRegistry,
    private readonly draws: SaleDraws,
    @Inject(ConfigService) config: TypedConfigService,
    @InjectPurchaseDeadlineMs() purchaseDeadlineMs: number,
  ) {
    this.tickMs = config.get('waitingRoom', { infer: true }).tickMs;
    this.graceMs = purchaseDeadlineMs + 1000;
  }

  onApplicationBootstrap(): void {
    const timer = setInterval(
      () => void this.tick().catch((error) => reportBackgroundFailure(this.log, JOB, 'tick', error)),
      this.tickMs,
    );
    timer.unref();
    this.scheduler.addInterval(JOB, timer);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('interval', JOB)) this.scheduler.deleteInterval(JOB);
    // Only waits for a step in flight to end: its failure is the tick's caller's to report.
    await Promise.allSettled([this.running]);
  }

  /** One step, unless one is still running here; rejects only with a failure that is not a dependency's. */
  async tick(): Promise<void> {
    if (this.running || Date.now() < this.idleUntil) return;
    this.running = this.runExclusively();
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }

  private async runExclusively(): Promise<void> {
    try {
      // A short lease (renewed while the step runs): if the leader dies, another takes over within it.
      await this.locks.using(`job:${JOB}`, { ttlMs: LEASE_MS, waitMs: 0, reentrant: false }, () => this.step());
    } catch (error) {
      if (error instanceof LockTimeoutError) return; // another instance is on it
      if (!isDatabaseUnavailable(error) && !isRedisUnavailable(error)) throw error;
      // Postgres or Redis down: report once a backoff, not every tick; nothing is admitted meanwhile.
      this.idleUntil = Date.now() + IDLE_BACKOFF_MS;
      reportBackgroundFailure(this.log, JOB, 'step', error);
    }
  }

  async step(): Promise<void> {
    const listed: Sale[] = await this.db.query(OPEN_SALES);
    if (!listed.length) this.idleUntil = Date.now() + IDLE_BACKOFF_MS;
    const now = Date.now();
    const sales = listed.filter(
      (sale) => sale.sale_starts_at === null || new Date(sale.sale_starts_at).getTime() <= now,
    );
    if (!sales.length) return;
    const boughtBefore = new Map<string, number>();
    for (const sale of sales) boughtBefore.set(String(sale.id), await this.openQueue(sale));
    // Stock is read after `bought`: see the admit script.
    const stocks: ProductRow[] = await this.db.query(STOCK_OF, [[...boughtBefore.keys()]]);
    for (const row of stocks) {
      const sale = sales.find((s) => String(s.id) === String(row.id))!;
      await this.admit(sale, row.stock, boughtBefore.get(String(row.id))!);
    }
  }

  /**
   * Closes the pre-queue, decides the sale's draw when it can (sale-audit/sale-draws.service.ts:
   * the committed beacon round, or the fallback past its deadline) and, once decided, stores the
   * shuffle it keys. Until then the pre-queue waits unranked, and the admit script admits nothing
   * from it. Returns the `bought` count read.
   */
  private async openQueue(sale: Sale): Promise<number> {
    const id = String(sale.id);
    const queue = await this.store.freeze(id);
    const draw = await this.draws.settle(id);
    if (queue.pre > 0 && !queue.ranked && draw) {
      await this.store.writeRanks(id, await rankPreQueue(draw.shuffleSeed, queue.pre));
      this.log.log(`product ${id}: shuffled ${queue.pre} pre-queue ticket(s), beacon ${draw.beacon}`);
    }
    return queue.bought;
  }

  private async admit(sale: Sale, stock: number, boughtBefore: number): Promise<void> {
    const id = String(sale.id);
    const settings = sale.waiting_room;
    const rate = settings.admitPerSecond ?? automaticRate(this.batches, id, sale.segments);
    const result = await this.store.admit(id, {
      nowMs: Date.now(),
      stock,
      rate,
      ttlMs: settings.admissionTtlS * 1000,
      boughtBefore,
      graceMs: this.graceMs,
      perUserLimit: sale.per_user_limit,
    });
    this.metrics.admissions.inc(result.admitted);
    this.metrics.expired.inc(result.expired);
    this.metrics.waiting.set({ product_id: id }, result.waiting);
    this.metrics.outstanding.set({ product_id: id }, result.outstanding);
  }
}
