import { Injectable } from '@nestjs/common';
import { isDatabaseUnavailable } from '../../common/errors/dependency-errors';
import { HotStatements } from '../../database/statements';
import { OutcomeUnknownError } from '../../database/outcome-unknown';
import { ORDER_COLUMNS, OrderRow } from '../order.view';
import { deadlineNow } from '../../purchase-batches/purchase-deadline';

export interface AttemptedPurchase {
  userId: string;
  purchaseId: string;
}

// Closing an attempt: its id goes into purchase_attempts. While the attempt still runs, this insert
// waits for it (bounded by lock_timeout, set for this statement only); once the id is in, a late
// arrival of the attempt finds it taken and does nothing (purchase_batch's first step).
const CLOSE_ATTEMPT =
  "INSERT INTO purchase_attempts (id) SELECT $1::uuid WHERE set_config('lock_timeout', $2::text, true) IS NOT NULL ON CONFLICT DO NOTHING";
const TRIES = 3;
const FIND_BY_PURCHASE_ID = `SELECT ${ORDER_COLUMNS} FROM orders WHERE (user_id, idempotency_key) IN (SELECT * FROM unnest($1::varchar[], $2::varchar[]))`;

/**
 * Learns what became of a purchase attempt whose answer was lost: first makes its outcome final
 * (it can no longer commit later), then reads its orders back by purchase id. Answers one entry
 * per purchase, the order or undefined (nothing was done, and nothing will be); or undefined as a
 * whole when Postgres could not be asked in time, and the outcome is still open.
 */
@Injectable()
export class AttemptSettlement {
  constructor(private readonly statements: HotStatements) {}

  /** `endsBy` (deadlineNow's clock): a purchase batch's own bound, or a lookup's. */
  async settle(
    attemptId: string,
    purchases: AttemptedPurchase[],
    endsBy: number,
  ): Promise<(OrderRow | undefined)[] | undefined> {
    // The pool may hand out a connection that broke with the attempt's (a terminated backend whose
    // socket has not closed yet); it fails at once and is dropped, so the next try gets another.
    for (let tries = 0; tries < TRIES && endsBy - deadlineNow() >= 1; tries++) {
      try {
        return await this.settleOnce(attemptId, purchases, endsBy);
      } catch (error) {
        // 55P03: the attempt still holds its id past our bound; ask again later.
        if ((error as { code?: unknown }).code === '55P03') return undefined;
        if (!(error instanceof OutcomeUnknownError) && !isDatabaseUnavailable(error)) throw error;
      }
    }
    return undefined;
  }

  private async settleOnce(
    attemptId: string,
    purchases: AttemptedPurchase[],
    endsBy: number,
  ): Promise<(OrderRow | undefined)[] | undefined> {
    const closeWithin = endsBy - deadlineNow();
    await this.statements.runAnswerable(
      'purchase_attempt_close',
      CLOSE_ATTEMPT,
      [attemptId, `${Math.max(1, Math.floor(closeWithin))}ms`],
      closeWithin,
    );
    const left = endsBy - deadlineNow();
    if (left < 1) return undefined;
    const rows = await this.statements.runAnswerable<OrderRow>(
      'purchase_find_by_id',
      FIND_BY_PURCHASE_ID,
      [purchases.map((p) => p.userId), purchases.map((p) => p.purchaseId)],
      left,
    );
    const byPurchase = new Map(rows.map((row) => [purchaseKey(row.user_id, row.idempotency_key!), row]));
    return purchases.map((p) => byPurchase.get(purchaseKey(p.userId, p.purchaseId)));
  }
}

const purchaseKey = (userId: string, purchaseId: string): string => `${userId}\u0001${purchaseId}`;
