import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HeldLock, WithLock, type Lock, type WithLockOptions } from '@app/distributed-lock';
import { HotStatements, withConflictRetry } from '../database/statements';
import { OutcomeUnknownError } from '../database/outcome-unknown';
import { TypedConfigService } from '../config/app-config.module';
import { ProductCatalog } from '../inventory/product-catalog.service';
import { registeredHistogram } from '../metrics/registered-metrics';
import { OrderRow } from '../orders/order.view';
import { AttemptSettlement } from '../orders/purchase-outcome/attempt-settlement';
import { PendingPurchases } from '../orders/purchase-outcome/pending-purchases';
import { BatchRefusedError, deadlineRefusal, DeadlineSpentError } from '../purchase-batches/batch-refusal';
import { deadlineNow } from '../purchase-batches/purchase-deadline';
import type { BatchServer, BatchWindow, ServedBatch } from '../purchase-batches/unit-batcher';
import { FenceRepair } from './fence-repair';
import { Fence, StockUnit } from './stock-keys';

/**
 * What purchase_batch answered for one purchase; or, when its answer was lost: SETTLED (it had
 * committed: `order`), NOT_COMMITTED (it had not, and now never will) or PENDING (not learnt in time).
 * SUPERSEDED: the attempt arrived after its outcome had been settled, and did nothing.
 */
export type BatchOutcomeKind =
  | 'CREATED'
  | 'SOLD_OUT'
  | 'PER_USER_LIMIT'
  | 'DUPLICATE_KEY'
  | 'NOT_FOUND'
  | 'STALE_FENCE'
  | 'SUPERSEDED'
  | 'SETTLED'
  | 'NOT_COMMITTED'
  | 'PENDING';

export interface BatchItem {
  userId: string;
  quantity: number;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** The Idempotency-Key when given, else an id the API generated; stored with the order. */
  purchaseId: string;
}

export interface BatchOutcome {
  outcome: BatchOutcomeKind;
  orderId: string | null;
  createdAt: Date | null;
  expiresAt: Date | null;
  /** With SETTLED: the order the lost attempt had committed. */
  order?: OrderRow;
}

/** One batch of purchases of one stock unit, served under that unit's lock. */
export interface StockBatch extends StockUnit {
  items: BatchItem[];
  /** The cut-off of the batch's oldest purchase (deadlineNow's clock). */
  endsBy: number;
  /** How long the batch may wait for the unit's lock: LOCK_WAIT_MS, or less when its cut-off is nearer. */
  lockWaitMs: number;
}

interface BatchRow {
  outcome: BatchOutcomeKind;
  order_id: string | null;
  created_at: Date | null;
  expires_at: Date | null;
  stock_left: number | null;
}

// lock_timeout is read each time a lock wait begins, so setting it in an argument (evaluated before
// the function body runs) bounds every row-lock wait of the statement by the batch's cut-off;
// is_local confines it to the statement's own transaction. A cancelled statement commits nothing.
const SQL =
  'SELECT idx, outcome, order_id, created_at, expires_at, stock_left FROM purchase_batch(' +
  "CASE WHEN set_config('lock_timeout', $9::text, true) IS NULL THEN NULL ELSE $1::bigint END, $2, $3, $4, $5, $6, $7, $8, $10, $11) ORDER BY idx";

// Of a batch's time, what is kept back for learning the outcome when the statement's answer is lost.
const SETTLE_RESERVE_MS = 300;
// Runs of one batch whose answers were lost and that left nothing behind, before it is refused.
const MAX_RUNS = 3;
const NOTHING_DONE = Symbol('nothing done');
const LOST_ANSWER_OUTCOMES: ReadonlySet<BatchOutcomeKind> = new Set<BatchOutcomeKind>([
  'SETTLED',
  'NOT_COMMITTED',
  'PENDING',
]);

// No re-entry (so no AsyncLocalStorage: see WithLockOptions.reentrant); the statement checks the
// fence, so Postgres has the last word; the lock wait is bounded by the batch's cut-off.
const LOCK_OPTIONS: WithLockOptions = {
  reentrant: false,
  fenced: true,
  waitMs: (batch: StockBatch) => batch.lockWaitMs,
};

/**
 * Takes stock for a batch of purchases: one lock hold on the unit (`stock:<productId>`, or
 * `stock:<productId>:<segment>`) and one statement, `purchase_batch`, in which Postgres has the
 * final word: the conditional UPDATE of the stock row, the per-user quota, the idempotency key.
 * Each purchase is still its own all-or-nothing result. Its fence comes from the lock
 * `@WithLock` took; with Redis unreachable and LOCK_FALLBACK=db it runs unlocked (fence null)
 * and Postgres' row locks order the writers.
 */
@Injectable()
export class StockService implements BatchServer<StockUnit, BatchItem, BatchOutcome> {
  private readonly paymentTtlS: number;
  private readonly lockWaitMs: number;
  private readonly batchSizes = registeredHistogram(
    'purchase_batch_size',
    'Purchases served per lock hold',
    [1, 2, 4, 8, 16, 32, 64, 128, 256],
  );

  constructor(
    private readonly statements: HotStatements,
    private readonly fences: FenceRepair,
    private readonly catalog: ProductCatalog,
    private readonly settlement: AttemptSettlement,
    private readonly pending: PendingPurchases,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.paymentTtlS = config.get('orders', { infer: true }).paymentTtlS;
    this.lockWaitMs = config.get('lock', { infer: true }).waitMs;
  }

  /**
   * Serves one batch of a unit within its window: its outcomes, or BatchRefusedError when the
   * cut-off came before it could run (nothing done); every other error goes on. A batch whose
   * answer was lost is reported unmeasured: it timed the fault, not the service.
   */
  async serveBatch(unit: StockUnit, items: BatchItem[], window: BatchWindow): Promise<ServedBatch<BatchOutcome>> {
    const lockWaitMs = Math.max(0, Math.min(this.lockWaitMs, Math.floor(window.endsBy - window.startedAt)));
    const batch: StockBatch = { ...unit, items, endsBy: window.endsBy, lockWaitMs };
    try {
      const outcomes = unit.segment === null ? await this.commitBatch(batch) : await this.commitSegmentBatch(batch);
      return { outcomes, measured: !outcomes.some(lostAnswer) };
    } catch (error) {
      const reason = deadlineRefusal(error, lockWaitMs < this.lockWaitMs);
      throw reason ? new BatchRefusedError(reason) : error;
    }
  }

  /** A batch of a product's purchases, under `stock:<productId>`. */
  @WithLock('stock:<productId>', LOCK_OPTIONS)
  commitBatch(batch: StockBatch, @HeldLock() lock?: Lock): Promise<BatchOutcome[]> {
    return this.commit(batch, lock);
  }

  /** A batch of one segment's purchases, under `stock:<productId>:<segment>`. */
  @WithLock('stock:<productId>:<segment>', LOCK_OPTIONS)
  commitSegmentBatch(batch: StockBatch, @HeldLock() lock?: Lock): Promise<BatchOutcome[]> {
    return this.commit(batch, lock);
  }

  /**
   * Under the unit's lock: one statement (atomic, so run again after a deadlock; settled when its
   * answer is lost, and run again if that shows it left nothing), then afterCommit.
   */
  private async commit(batch: StockBatch, lock: Lock | undefined): Promise<BatchOutcome[]> {
    const fence: Fence = lock ? lock.fence : null;
    this.batchSizes.observe(batch.items.length);
    for (let run = 1; ; run++) {
      const attemptId = randomUUID();
      let rows: BatchRow[];
      try {
        rows = await withConflictRetry(() => this.runAttempt(batch, fence, attemptId));
      } catch (error) {
        if (!(error instanceof OutcomeUnknownError)) throw error;
        const settled = await this.settleLost(batch, attemptId);
        // Nothing of the settled attempt stayed (a connection killed before or during it): run the
        // batch again while its time lasts; statementBudget ends it when none is left.
        if (settled !== NOTHING_DONE) return settled;
        if (run >= MAX_RUNS) return batch.items.map(() => emptyOutcome('NOT_COMMITTED'));
        continue;
      }
      return this.afterCommit(batch, rows, fence, lock);
    }
  }

  /** One run of purchase_batch under its own attempt id (a conflict retry reuses it: the failed run left nothing). */
  private runAttempt(batch: StockBatch, fence: Fence, attemptId: string): Promise<BatchRow[]> {
    const budget = statementBudget(batch.endsBy); // taken again by a retry: the cut-off does not move
    const { items } = batch;
    return this.statements.runAnswerable<BatchRow>(
      'purchase_batch',
      SQL,
      [
        batch.productId,
        batch.segment,
        fence,
        items.map((b) => b.userId),
        items.map((b) => b.quantity),
        items.map((b) => b.idempotencyKey),
        items.map((b) => b.requestHash),
        this.paymentTtlS,
        `${budget.lockMs}ms`,
        items.map((b) => (b.idempotencyKey === null ? b.purchaseId : null)),
        attemptId,
      ],
      budget.replyMs,
    );
  }

  /**
   * The sold-out flag and cache follow the stock. That bookkeeping is best effort and never throws:
   * once the statement has committed, its buyers are answered with their orders.
   */
  private async afterCommit(unit: StockUnit, rows: BatchRow[], fence: Fence, lock?: Lock): Promise<BatchOutcome[]> {
    if (fence !== null && rows[0]?.outcome === 'STALE_FENCE') await this.fences.repairFenceIfReset(unit, lock);
    const last = rows[rows.length - 1];
    if (last && last.stock_left !== null && last.outcome !== 'STALE_FENCE') {
      const changed = rows.some((r) => r.outcome === 'CREATED');
      if (changed || last.stock_left === 0) await this.catalog.afterUnitChange(unit, last.stock_left);
    }
    return rows.map(toOutcome);
  }

  /**
   * The statement's answer was lost: it may have committed. Makes its outcome final and reads its
   * orders back within the batch's time: the orders it made (the others' refusals are not known,
   * so they are answered "nothing was done"), or NOTHING_DONE. Failing that, PENDING, settled later.
   */
  private async settleLost(batch: StockBatch, attemptId: string): Promise<BatchOutcome[] | typeof NOTHING_DONE> {
    const orders = await this.settlement.settle(attemptId, batch.items, batch.endsBy);
    if (orders?.every((order) => order === undefined)) return NOTHING_DONE;
    if (orders)
      return orders.map((order) => (order ? { ...emptyOutcome('SETTLED'), order } : emptyOutcome('NOT_COMMITTED')));
    // remember() reports its own failures (a background failure); the buyers are answered PENDING.
    void this.pending.remember(
      batch.items.map((b) => ({
        userId: b.userId,
        purchaseId: b.purchaseId,
        productId: batch.productId,
        quantity: b.quantity,
        attemptId,
        state: 'PENDING' as const,
      })),
    );
    return batch.items.map(() => emptyOutcome('PENDING'));
  }
}

/**
 * How long the statement may take: what is left of the batch's time, less the settling reserve;
 * its row-lock waits end a little sooner, so that Postgres' own refusal (nothing done) arrives
 * before the client gives up on the reply. None left runs nothing.
 */
function statementBudget(endsBy: number): { replyMs: number; lockMs: number } {
  const left = Math.floor(endsBy - deadlineNow());
  if (left < 1) throw new DeadlineSpentError();
  const replyMs = Math.max(1, left - Math.min(SETTLE_RESERVE_MS, Math.floor(left / 3)));
  return { replyMs, lockMs: Math.max(1, replyMs - Math.min(50, Math.floor(replyMs / 4))) };
}

const lostAnswer = (outcome: BatchOutcome): boolean => LOST_ANSWER_OUTCOMES.has(outcome.outcome);

const emptyOutcome = (outcome: BatchOutcomeKind): BatchOutcome => ({
  outcome,
  orderId: null,
  createdAt: null,
  expiresAt: null,
});

const toOutcome = (row: BatchRow): BatchOutcome => ({
  outcome: row.outcome,
  orderId: row.order_id === null ? null : String(row.order_id),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});
