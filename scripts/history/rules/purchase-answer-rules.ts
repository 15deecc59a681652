import { PollRecord, PurchaseRecord, verdictOf } from '../format';
import { describe, Model, PurchaseGroup } from '../model';
import { RuleResult, RuleTally } from '../tally';

/**
 * Every answer about a purchase id fits that purchase's story: a poll says PENDING only until its
 * outcome was told (a 201, a CREATED or REFUSED poll, or any answer that showed its order); a poll
 * by its own user is not answered 404 or 403 once the purchase is known to have an order; a 422
 * IDEMPOTENCY_KEY_REUSED needs another request of that user and key asking something else (another
 * product or quantity), sent before it was answered.
 */
export function purchaseAnswers(m: Model): RuleResult {
  const tally = new RuleTally('every answer about a purchase id fits its story');
  for (const group of m.groups) {
    // One case per purchase id: its first answer that does not fit.
    let problem: string | undefined;
    if (group.polls.length) {
      const { toldAt, orderKnownAt } = whatWasKnown(m, group);
      for (const poll of group.polls) problem ??= judgePoll(poll, toldAt, orderKnownAt);
    }
    for (const p of group.purchases) if (p.code === 'IDEMPOTENCY_KEY_REUSED') problem ??= judgeReused(group, p);
    tally.judge(problem);
  }
  return tally.result();
}

/** When an answer first told the purchase's outcome, and when its order was first known to exist. */
function whatWasKnown(m: Model, group: PurchaseGroup): { toldAt: number; orderKnownAt: number } {
  let orderKnownAt = Infinity;
  for (const p of group.purchases) if (verdictOf(p) === 'ok') orderKnownAt = Math.min(orderKnownAt, p.completeMs);
  for (const p of group.polls) if (p.state === 'CREATED') orderKnownAt = Math.min(orderKnownAt, p.completeMs);
  for (const o of group.orders) orderKnownAt = Math.min(orderKnownAt, m.shownByMs.get(o.id) ?? Infinity);
  const refusedAt = group.polls.reduce(
    (min, p) => (p.state === 'REFUSED' ? Math.min(min, p.completeMs) : min),
    Infinity,
  );
  return { toldAt: Math.min(orderKnownAt, refusedAt), orderKnownAt };
}

function judgePoll(poll: PollRecord, toldAt: number, orderKnownAt: number): string | undefined {
  if (poll.state === 'PENDING' && poll.invokeMs > toldAt)
    return `${describe(poll)}: PENDING, sent after the purchase's outcome was told at ${toldAt}`;
  if ((poll.status === 404 || poll.status === 403) && poll.invokeMs > orderKnownAt)
    return `${describe(poll)}: the purchase's order was known at ${orderKnownAt}`;
  return undefined;
}

function judgeReused(group: PurchaseGroup, reused: PurchaseRecord): string | undefined {
  const other = group.purchases.some(
    (q) =>
      q !== reused &&
      q.invokeMs <= reused.completeMs &&
      (q.quantity !== reused.quantity || String(q.productId) !== String(reused.productId)),
  );
  return other
    ? undefined
    : `${describe(reused)}: no request of ${group.userId} with key ${group.id} asked for anything else before it`;
}
