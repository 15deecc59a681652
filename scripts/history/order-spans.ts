import { CancelRecord, FinalOrder, verdictOf } from './format';
import { dueMs, isLive, Model } from './model';

/**
 * When an order held its units, on the database's clock. `sureFrom`..`sureUntil` is when it held
 * them for certain; `mayFrom`..`mayUntil` when it may have. The certain span starts `skewMs` after
 * `createdAt` (the purchase statement reads its clock before it waits for the stock row) and ends
 * at the earliest end the evidence allows:
 * - live at the end (PENDING_PAYMENT, PAID): never;
 * - EXPIRED: not before it was due, nor before the database recorded it closed;
 * - CANCELLED: not before the first cancel of it that was not refused was sent, nor before its
 *   recorded close; with neither, at its creation (the order-state rule flags such an order).
 * The possible span starts at createdAt (the statement cannot take units before it began) and
 * ends when something surely ended it: a cancel answered 200, the recorded close time (plus the
 * tolerance), or never.
 */
export interface OrderSpan {
  order: FinalOrder;
  sureFrom: number;
  sureUntil: number;
  mayFrom: number;
  mayUntil: number;
}

export function orderSpans(m: Model, orders: FinalOrder[] = m.orders): OrderSpan[] {
  const skew = m.options.skewMs;
  return orders.map((order) => {
    const cancels = (m.byOrder.get(order.id) ?? []).filter(
      (op): op is CancelRecord => op.op === 'cancel' && verdictOf(op) !== 'refused',
    );
    return {
      order,
      sureFrom: order.createdAtMs + skew,
      sureUntil: sureEnd(m, order, cancels),
      mayFrom: order.createdAtMs,
      mayUntil: latestEnd(order, cancels, skew),
    };
  });
}

function sureEnd(m: Model, order: FinalOrder, cancels: CancelRecord[]): number {
  if (isLive(order)) return Infinity;
  const closed = typeof order.closedAtMs === 'number' ? order.closedAtMs : -Infinity;
  if (order.status === 'EXPIRED') return Math.max(dueMs(m, order), closed);
  const firstSent = cancels.reduce((min, c) => Math.min(min, c.invokeMs - m.options.skewMs), Infinity);
  if (firstSent === Infinity) return Number.isFinite(closed) ? closed : order.createdAtMs;
  return Math.max(firstSent, closed);
}

function latestEnd(order: FinalOrder, cancels: CancelRecord[], skew: number): number {
  if (isLive(order)) return Infinity;
  if (typeof order.closedAtMs === 'number') return order.closedAtMs + skew;
  const answered = cancels
    .filter((c) => verdictOf(c) === 'ok')
    .reduce((min, c) => Math.min(min, c.completeMs + skew), Infinity);
  return answered;
}
