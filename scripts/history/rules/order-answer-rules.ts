import { CancelRecord, FinalOrder, PayRecord, verdictOf } from '../format';
import { describe, dueMs, Model } from '../model';
import { RuleResult, RuleTally } from '../tally';

type OrderOp = PayRecord | CancelRecord;

/** Each pay and cancel of an order of the history, with its order. */
function* orderOps(m: Model): Generator<[OrderOp, FinalOrder]> {
  for (const [orderId, ops] of m.byOrder) {
    const order = m.ordersById.get(orderId);
    if (order) for (const op of ops) yield [op as OrderOp, order];
  }
}

/**
 * Only the order's user pays it (POST /orders/:id/pay) or cancels it as `user`; an admin may
 * cancel any. Judged on answers 200 that name the caller (`userId`); a webhook delivery (with a
 * `result`) comes from the payment provider, not a user.
 */
export function orderActors(m: Model): RuleResult {
  const tally = new RuleTally("only the order's user or an admin pays or cancels it");
  for (const [op, order] of orderOps(m)) {
    if (verdictOf(op) !== 'ok' || op.userId === undefined) continue;
    const asUser = op.op === 'pay' ? op.result === undefined : op.actor === 'user';
    if (asUser)
      tally.judge(
        op.userId !== order.userId
          ? `${describe(op)}: ${op.userId} acted on order ${order.id} of ${order.userId}`
          : undefined,
      );
  }
  return tally.result();
}

/**
 * Every answer to a pay or a cancel is true: a 200 carries the state it made (PAID, CANCELLED); a
 * refusal for the order's state (409 INVALID_ORDER_STATE, the webhook's ORDER_NOT_PAYABLE) comes
 * only when the order may have left that state by the answer; ORDER_NOT_FOUND only for an order
 * that may not exist yet; FORBIDDEN never to the order's own user; ALREADY_PROCESSED only after an
 * earlier delivery for the order.
 */
export function orderAnswers(m: Model): RuleResult {
  const tally = new RuleTally('every pay and cancel answer is true');
  for (const [op, order] of orderOps(m)) tally.judge(judgeAnswer(m, op, order));
  return tally.result();
}

function judgeAnswer(m: Model, op: OrderOp, order: FinalOrder): string | undefined {
  const where = `${describe(op)} (order ${order.id}, ${order.status})`;
  const made = op.op === 'pay' ? 'PAID' : 'CANCELLED';
  if (verdictOf(op) === 'ok' && op.orderStatus !== undefined && op.orderStatus !== made)
    return `${where}: answered 200 with the order ${op.orderStatus}, not ${made}`;
  const stateRefusal = op.code === 'INVALID_ORDER_STATE' || (op.op === 'pay' && op.result === 'ORDER_NOT_PAYABLE');
  const needs = op.op === 'cancel' && op.actor === 'admin' ? 'live' : 'pending';
  if (stateRefusal && surelyOpen(m, order, op, needs))
    return `${where}: refused for its state, yet the order was surely ${needs === 'live' ? 'live' : 'PENDING_PAYMENT'} throughout`;
  if (op.code === 'ORDER_NOT_FOUND' && order.createdAtMs + m.options.skewMs < op.invokeMs)
    return `${where}: not found, yet created at ${order.createdAtMs}`;
  if (op.code === 'FORBIDDEN' && op.userId === order.userId && !(op.op === 'cancel' && op.actor === 'admin'))
    return `${where}: forbidden to the order's own user`;
  if (
    op.op === 'pay' &&
    op.result === 'ALREADY_PROCESSED' &&
    !(m.byOrder.get(order.id) ?? []).some((p) => p !== op && p.op === 'pay' && p.invokeMs <= op.completeMs)
  )
    return `${where}: ALREADY_PROCESSED with no earlier delivery for the order`;
  return undefined;
}

/**
 * Whether the order was surely in the state the operation needs for the whole request (database
 * clock, widened by the allowance): created before it was sent, not closed by its answer, and for
 * `pending` also not paid and not due by then. Unknown (no recorded times) is never sure.
 */
function surelyOpen(m: Model, order: FinalOrder, op: OrderOp, needs: 'pending' | 'live'): boolean {
  const skew = m.options.skewMs;
  const by = op.completeMs + skew;
  if (order.createdAtMs + skew > op.invokeMs) return false;
  const closed = order.closedAtMs;
  if (
    closed === undefined
      ? order.status !== 'PENDING_PAYMENT' && order.status !== 'PAID'
      : closed !== null && closed <= by
  )
    return false;
  if (needs === 'live') return true;
  const paid = order.paidAtMs;
  if (paid === undefined || (paid !== null && paid <= by)) return false;
  return by < dueMs(m, order);
}
