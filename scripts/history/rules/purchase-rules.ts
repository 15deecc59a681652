import { FinalOrder, PollRecord, PurchaseRecord, verdictOf } from '../format';
import { describe, groupKey, latestEffectMs, Model, PurchaseGroup } from '../model';
import { RuleResult, RuleTally } from '../tally';

/**
 * Every 201 (and every poll answered CREATED) names an order that is in the final state, and it is
 * the order that request asked for: its user, product, purchase id and quantity.
 */
export function every201Durable(m: Model): RuleResult {
  const tally = new RuleTally('every 201 is in the final state');
  for (const op of [...m.byKind.purchase, ...m.byKind.poll]) {
    const created = (op.op === 'purchase' && verdictOf(op) === 'ok') || (op.op === 'poll' && op.state === 'CREATED');
    if (!created) continue;
    const order = op.orderId !== undefined ? m.ordersById.get(op.orderId) : undefined;
    const purchaseId = op.op === 'purchase' ? (op.key ?? op.purchaseId) : op.purchaseId;
    const asked = op.op === 'purchase' ? op : requestPolled(m, op);
    if (!order) tally.judge(`lost: ${describe(op)} named order ${op.orderId ?? '(none)'}, absent from the final state`);
    else if (order.userId !== op.userId)
      tally.judge(`${describe(op)}: order ${order.id} belongs to ${order.userId}, not ${op.userId}`);
    else if (purchaseId !== undefined && order.purchaseId !== null && order.purchaseId !== purchaseId)
      tally.judge(`${describe(op)}: order ${order.id} is of purchase ${order.purchaseId}, not ${purchaseId}`);
    else if (asked && order.productId !== String(asked.productId))
      tally.judge(
        `${describe(op)}: order ${order.id} is of product ${order.productId}, the purchase was of ${asked.productId}`,
      );
    else if (asked && order.quantity !== (asked.quantity ?? 1))
      tally.judge(
        `${describe(op)}: order ${order.id} holds ${order.quantity} unit(s), the purchase asked for ${asked.quantity ?? 1}`,
      );
    else tally.judge();
  }
  return tally.result();
}

/**
 * The request a poll follows: of its purchase id's requests sent before it, the latest answered
 * 202 with that id, else the latest not refused as another request (422 IDEMPOTENCY_KEY_REUSED is
 * an answer to a different body under the same key, which made nothing).
 */
function requestPolled(m: Model, poll: PollRecord): PurchaseRecord | undefined {
  const own = (m.groupOf(poll.userId, poll.purchaseId)?.purchases ?? []).filter(
    (p) => p.code !== 'IDEMPOTENCY_KEY_REUSED' && p.invokeMs <= poll.invokeMs,
  );
  return own.filter((p) => p.status === 202 && p.purchaseId === poll.purchaseId).pop() ?? own.pop();
}

/**
 * Each order must have been made by a request that was not refused: one answered 201 or never
 * definitely answered (a timeout, a 202), sent before the order's transaction began and not
 * answered before it (within the clock tolerance). A refusal is a lie when the only request that
 * could have made its purchase's order is the refused one; a poll's REFUSED is final, so its
 * purchase may have no order at all.
 */
export function refusalsDidNothing(m: Model): { refusals: RuleResult; explained: RuleResult } {
  const refusals = new RuleTally('no refused purchase has an order (now or later)');
  const explained = new RuleTally('every order was made by a request that was not refused');
  const skew = m.options.skewMs;
  for (const group of m.groups) {
    const orders = group.orders;
    if (!orders.length) {
      for (const p of group.purchases) if (verdictOf(p) === 'refused') refusals.judge();
      for (const p of group.polls) if (p.state === 'REFUSED') refusals.judge();
      continue;
    }
    const definiteRefusals = group.purchases.filter((p) => verdictOf(p) === 'refused');
    const pollRefused = group.polls.filter((p) => p.state === 'REFUSED');
    const refusedCount = definiteRefusals.length + pollRefused.length;
    for (const order of orders) {
      const maker = group.purchases.some(
        (p) =>
          verdictOf(p) !== 'refused' &&
          p.invokeMs <= order.createdAtMs + skew &&
          latestEffectMs(p) >= order.createdAtMs - skew,
      );
      const culprit = definiteRefusals.find(
        (r) => r.invokeMs <= order.createdAtMs + skew && r.completeMs >= order.createdAtMs - skew,
      );
      if (pollRefused.length)
        refusals.judge(
          `purchase ${group.id}: polled REFUSED (${describe(pollRefused[0])}) but order ${order.id} exists`,
        );
      else if (!maker && culprit)
        refusals.judge(
          `purchase ${group.id}: ${describe(culprit)} but order ${order.id} was created at ${order.createdAtMs}, during it`,
        );
      else if (refusedCount) refusals.judge();
      explained.judge(
        maker || culprit
          ? undefined
          : `order ${order.id} (purchase ${group.id}, created ${order.createdAtMs}): no request could have made it`,
      );
    }
  }
  // Orders whose purchase id no operation knew: only a keyless purchase that got no answer explains them.
  const spare = new Map(m.anonymousUnknown);
  for (const order of m.strayOrders) {
    const slot = `${order.userId}|${order.productId}`;
    const left = spare.get(slot) ?? 0;
    if (left > 0) spare.set(slot, left - 1);
    explained.judge(
      left > 0
        ? undefined
        : `order ${order.id} of ${order.userId} (purchase ${order.purchaseId ?? 'none'}): no request in the history names it`,
    );
  }
  return { refusals: refusals.result(), explained: explained.result() };
}

/** A refusal that says "this purchase has no order", as opposed to "try again" (503, 429) or "never sent" (ECONNREFUSED). */
const saysNoOrder = (p: PurchaseRecord): boolean =>
  verdictOf(p) === 'refused' && p.status !== undefined && p.status !== 503 && p.status !== 429;

/**
 * One outcome per purchase id, across all its requests, retries and polls: at most one order; every
 * 201 and CREATED poll names that order; once the order exists (its creation, give or take the
 * clock tolerance, or an answer that showed it) every later answer to the purchase id names it,
 * never a refusal (invariant 4: a retry returns the first response); a poll never says REFUSED of
 * a purchase that has an order; and a purchase id refused 409 never gets an order later.
 */
export function onePurchaseOutcome(m: Model): RuleResult {
  const tally = new RuleTally('one outcome per purchase id');
  const seen = new Map<string, FinalOrder>();
  for (const order of m.strayOrders) {
    if (order.purchaseId === null) continue;
    const key = groupKey(order.userId, order.purchaseId);
    const first = seen.get(key);
    if (first) tally.judge(`purchase ${order.purchaseId} of ${order.userId}: orders ${first.id} and ${order.id}`);
    else seen.set(key, order);
  }
  for (const group of m.groups) tally.judge(judgeGroup(m, group, group.orders));
  return tally.result();
}

const whereOf = (group: PurchaseGroup): string => `purchase ${group.id} of ${group.userId}`;

function judgeGroup(m: Model, group: PurchaseGroup, orders: FinalOrder[]): string | undefined {
  if (orders.length > 1) return `${whereOf(group)}: orders ${orders.map((o) => o.id).join(', ')}`;
  // The order the answers named (they must all name one); no set per purchase id: there are as many ids as requests.
  let named: string | undefined;
  let other: string | undefined;
  const name = (id: string | undefined) => {
    if (id === undefined) return;
    if (named === undefined) named = id;
    else if (named !== id) other ??= id;
  };
  for (const p of group.purchases) if (verdictOf(p) === 'ok') name(p.orderId);
  for (const p of group.polls) if (p.state === 'CREATED') name(p.orderId);
  if (other !== undefined) return `${whereOf(group)}: its answers named orders ${named}, ${other}`;
  const order = orders[0];
  if (!order) return undefined;
  const where = whereOf(group);
  if (named !== undefined && named !== order.id)
    return `${where}: answered with order ${named}, but its order is ${order.id}`;
  const refusedPoll = group.polls.find((p) => p.state === 'REFUSED');
  if (refusedPoll) return `${where}: ${describe(refusedPoll)} said REFUSED, but order ${order.id} exists`;
  const existedBy = Math.min(order.createdAtMs + m.options.skewMs, m.shownByMs.get(order.id) ?? Infinity);
  const differs = (p: PurchaseRecord) => p.quantity !== order.quantity || String(p.productId) !== order.productId;
  const late = group.purchases.find(
    (p) => saysNoOrder(p) && p.invokeMs > existedBy && !(p.code === 'IDEMPOTENCY_KEY_REUSED' && differs(p)),
  );
  if (late)
    return `${where}: ${describe(late)} was sent after order ${order.id} existed (created ${order.createdAtMs}), and refused`;
  const earlier409 = group.purchases.find(
    (p) => p.status === 409 && p.completeMs < order.createdAtMs - m.options.skewMs,
  );
  if (earlier409)
    return `${where}: ${describe(earlier409)}, yet order ${order.id} was made later (created ${order.createdAtMs})`;
  return undefined;
}
