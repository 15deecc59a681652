import { CancelRecord, FinalOrder, OpRecord, PayRecord, verdictOf } from '../format';
import { describe, dueMs, Model } from '../model';
import { RuleResult, RuleTally } from '../tally';

/** A pay that surely made the order PAID: 200 with the order PAID (direct) or the webhook's result PAID. */
export const surelyPaid = (p: PayRecord): boolean =>
  verdictOf(p) === 'ok' &&
  (p.result === undefined ? p.orderStatus === undefined || p.orderStatus === 'PAID' : p.result === 'PAID');
/**
 * A pay that may have made it PAID: sure, unknown, a webhook replay (its first delivery decided), or
 * a direct pay answered 200 with another status (a false answer, which order-answers reports).
 */
const mayHavePaid = (p: PayRecord): boolean =>
  surelyPaid(p) ||
  verdictOf(p) === 'unknown' ||
  p.result === 'ALREADY_PROCESSED' ||
  (p.result === undefined && verdictOf(p) === 'ok');
const mayHaveCancelled = (c: CancelRecord): boolean => verdictOf(c) !== 'refused';

/**
 * Order states move only along PENDING_PAYMENT → PAID | CANCELLED | EXPIRED and PAID → CANCELLED
 * (by an admin), and every move has a cause. Judged per order from its pays and cancels, its final
 * state and, where the final state has them, the database's own paid and closed times (never the
 * app's word alone):
 * - a pay is accepted only before the order was due (its recorded paid time, or else the pay's send
 *   time, no later than createdAt + the payment TTL, or expiresAt when the history gives no TTL);
 * - PAID needs a pay that may have paid it, sent before the recorded paid time; CANCELLED a cancel
 *   that may have done it, sent before the recorded close; EXPIRED the expiry job, which needs the
 *   order due by the database's clock (closed no earlier than due) and the order never paid;
 * - a paid order ends PAID or cancelled by an admin; a cancel answered 200 leaves it CANCELLED;
 * - at most one payment succeeds (two answers PAID, direct or by webhook, is a double charge); an
 *   answer PAID needs the database's paid time; nothing pays an order once it is closed (paid
 *   after its recorded close, or a pay sent after a cancel of it was answered 200);
 * - with a payment TTL given, the app-written expiresAt is no earlier than createdAt + TTL.
 */
export function legalOrderStates(m: Model): RuleResult {
  const tally = new RuleTally('order states only along legal edges');
  for (const order of m.orders) tally.judge(judgeOrder(m, order, m.byOrder.get(order.id) ?? []));
  return tally.result();
}

const iso = (t: number): string => new Date(t).toISOString();

function judgeOrder(m: Model, order: FinalOrder, ops: OpRecord[]): string | undefined {
  const skew = m.options.skewMs;
  const pays = ops.filter((op): op is PayRecord => op.op === 'pay');
  const cancels = ops.filter((op): op is CancelRecord => op.op === 'cancel');
  const paid = pays.filter(surelyPaid);
  const due = dueMs(m, order);
  const where = `order ${order.id} (${order.status})`;
  const ttlS = m.products.get(order.productId)?.paymentTtlS;
  if (ttlS !== undefined && order.expiresAtMs < due - skew)
    return `${where}: expiresAt ${iso(order.expiresAtMs)} is earlier than createdAt + ${ttlS} s (${iso(due)})`;
  const paidAt = typeof order.paidAtMs === 'number' ? order.paidAtMs : undefined;
  if (paidAt !== undefined) {
    if (paidAt > due) return `${where}: paid at ${iso(paidAt)}, after it was due at ${iso(due)}`;
    if (order.status !== 'PAID' && order.status !== 'CANCELLED')
      return `${where}: recorded paid at ${iso(paidAt)}, yet ${order.status}`;
    if (!pays.some((p) => mayHavePaid(p) && p.invokeMs - skew <= paidAt))
      return `${where}: recorded paid at ${iso(paidAt)}, with no pay sent by then that could have paid it`;
  }
  const life = paymentAfterClose(m, order, paid, cancels);
  if (life) return `${where}: ${life}`;
  const everPaid = paid.length > 0 || paidAt !== undefined;
  if (paid.length) {
    const firstPaid = paid.reduce((a, b) => (a.completeMs <= b.completeMs ? a : b));
    if (paidAt === undefined && order.paidAtMs !== null && firstPaid.invokeMs - skew > due)
      return `${where}: ${describe(firstPaid)} was sent after the order was due at ${iso(due)}`;
    if (order.status === 'EXPIRED') return `${where}: PAID → EXPIRED, after ${describe(firstPaid)}`;
    if (order.status === 'PENDING_PAYMENT') return `${where}: still unpaid after ${describe(firstPaid)}`;
    const buyerCancel = cancels.find(
      (c) => c.actor === 'user' && verdictOf(c) === 'ok' && c.invokeMs > firstPaid.completeMs,
    );
    if (buyerCancel) return `${where}: the buyer cancelled a PAID order: ${describe(buyerCancel)}`;
  }
  if (everPaid && order.status === 'CANCELLED' && !cancels.some((c) => c.actor === 'admin' && mayHaveCancelled(c)))
    return `${where}: paid, then cancelled by no admin`;
  const cancelled = cancels.find((c) => verdictOf(c) === 'ok');
  if (cancelled && order.status !== 'CANCELLED')
    return `${where}: ${describe(cancelled)} but the order is ${order.status}`;
  if (order.status === 'PAID' && !pays.some(mayHavePaid)) return `${where}: PAID with no pay that could have paid it`;
  if (order.status === 'CANCELLED') {
    const candidates = cancels.filter(mayHaveCancelled);
    if (!candidates.length) return `${where}: CANCELLED with no cancel that could have cancelled it`;
    const closed = order.closedAtMs;
    if (typeof closed === 'number' && !candidates.some((c) => c.invokeMs - skew <= closed))
      return `${where}: closed at ${iso(closed)}, before any cancel of it was sent`;
  }
  if (order.status === 'EXPIRED') {
    const closed = order.closedAtMs;
    if (typeof closed === 'number' && closed < due)
      return `${where}: expired at ${iso(closed)} by the database's clock, before it was due at ${iso(due)}`;
    if (due > m.options.finalReadAtMs + skew) return `${where}: expired before it was due at ${iso(due)}`;
  }
  return undefined;
}

/** A second successful payment, a payment the database never recorded, or a payment of a closed order. */
function paymentAfterClose(
  m: Model,
  order: FinalOrder,
  paid: PayRecord[],
  cancels: CancelRecord[],
): string | undefined {
  const skew = m.options.skewMs;
  if (paid.length > 1) return `paid twice: ${describe(paid[0])} and ${describe(paid[1])}`;
  if (paid.length && order.paidAtMs === null) return `${describe(paid[0])}, but the database recorded no payment`;
  const paidAt = order.paidAtMs;
  if (typeof paidAt === 'number' && typeof order.closedAtMs === 'number' && paidAt > order.closedAtMs)
    return `paid at ${iso(paidAt)}, after it was closed at ${iso(order.closedAtMs)}`;
  const cancelled = cancels
    .filter((c) => verdictOf(c) === 'ok')
    .reduce<CancelRecord | undefined>((a, c) => (a && a.completeMs <= c.completeMs ? a : c), undefined);
  if (!cancelled) return undefined;
  const later = paid.find((p) => p.invokeMs > cancelled.completeMs);
  if (later) return `${describe(later)} was sent after ${describe(cancelled)}`;
  if (typeof paidAt === 'number' && paidAt > cancelled.completeMs + skew)
    return `paid at ${iso(paidAt)}, after ${describe(cancelled)}`;
  return undefined;
}
