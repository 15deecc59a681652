import {
  buy,
  FINAL_READ,
  join,
  meta,
  order,
  pay,
  poll,
  queuePoll,
  read,
  setStock,
  T0,
} from '../../../test/history/support/records';
import { FinalOrder, MetaRecord, OpRecord } from '../format';
import { buildModel, CheckOptions } from '../model';
import { orderSpans } from '../order-spans';
import { purchaseAnswers } from './purchase-answer-rules';
import { every201Durable, onePurchaseOutcome, refusalsDidNothing } from './purchase-rules';
import { admissionsInOrder, admissionsWithinStock, purchasesAdmitted, queueAnswers } from './queue-rules';
import { stockReadsWithinSupply } from './stock-level-rule';
import { stockReadsFallByOrders, stockReadsMonotone } from './stock-read-rule';

/**
 * Near misses the corpus cannot hold (or holds only beside other rules' verdicts): each rule is
 * asked on its own, a history just inside what it allows beside one just outside, and how many
 * cases it judged where that count is the only thing a clause decides.
 */
const SKEW = 250;
const ONE = meta({ initialStock: 10, perUserLimit: 5 });
const TWO: MetaRecord = { ...ONE, products: [...ONE.products, { productId: '8', initialStock: 10, perUserLimit: 5 }] };
const model = (ops: OpRecord[], orders: FinalOrder[] = [], options: Partial<CheckOptions> = {}, m: MetaRecord = ONE) =>
  buildModel(m, ops, orders, { skewMs: SKEW, staleReadMs: 0, finalReadAtMs: FINAL_READ, ...options });

const durable = (ops: OpRecord[], orders: FinalOrder[] = []) => every201Durable(model(ops, orders));
const refusals = (ops: OpRecord[], orders: FinalOrder[] = []) => refusalsDidNothing(model(ops, orders));
const outcome = (ops: OpRecord[], orders: FinalOrder[] = []) => onePurchaseOutcome(model(ops, orders)).violations;
const answers = (ops: OpRecord[], orders: FinalOrder[] = []) => purchaseAnswers(model(ops, orders)).violations;
const rise = (ops: OpRecord[], orders: FinalOrder[] = [], options: Partial<CheckOptions> = {}, m: MetaRecord = ONE) => {
  const built = model(ops, orders, options, m);
  return stockReadsMonotone(built, orderSpans(built));
};
const fall = (ops: OpRecord[], orders: FinalOrder[] = []) => stockReadsFallByOrders(model(ops, orders));

const admitted = (ops: OpRecord[], orders: FinalOrder[]) => {
  const built = model(ops, orders);
  return purchasesAdmitted(built, queueAnswers(built)).violations;
};

const timeout = { error: 'TIMEOUT' };
const pending = { status: 202, code: 'PURCHASE_PENDING' };
const created = (orderId: string) => ({ status: 201, orderId });
const soldOut = { status: 409, code: 'SOLD_OUT' };
const reused = { status: 422, code: 'IDEMPOTENCY_KEY_REUSED' };

describe('every 201 is in the final state, at its edges', () => {
  it('does not judge a refusal that names no order', () => {
    const r = durable([buy('a', 'ka', 0, soldOut)]);
    expect([r.checked, r.violations]).toEqual([0, 0]);
  });

  it('judges a CREATED poll whose order is missing', () => {
    expect(
      durable([buy('a', 'ka', 0, pending), poll('a', 'ka', 1000, { state: 'CREATED', orderId: '9' })]).violations,
    ).toBe(1);
  });

  it("holds a 201 to its key's purchase id even when the answer named none", () => {
    const op = buy('a', 'ka', 0, { ...created('1'), purchaseId: undefined });
    expect(durable([op], [order('1', 'a', 'kb', 5)]).violations).toBe(1);
    expect(durable([op], [order('1', 'a', 'ka', 5)]).violations).toBe(0);
  });

  it('does not hold a keyless 201 without a purchase id to any', () => {
    const op = buy('a', 'ka', 0, { ...created('1'), key: undefined, purchaseId: undefined });
    expect(durable([op], [order('1', 'a', 'p1', 5)]).violations).toBe(0);
  });

  it('does not hold an order without a purchase id to the 201 key', () => {
    expect(
      durable([buy('a', 'ka', 0, created('1'))], [{ ...order('1', 'a', 'ka', 5), purchaseId: null }]).violations,
    ).toBe(0);
  });

  it('holds a 201 to its own quantity, not to an earlier 202 of its key', () => {
    const ops = [buy('a', 'ka', 0, pending, 2), buy('a', 'ka', 100, created('1'), 1)];
    expect(durable(ops, [order('1', 'a', 'ka', 105)]).violations).toBe(0);
  });

  it("holds a CREATED poll to its 202's quantity", () => {
    const ops = [buy('a', 'ka', 0, pending, 2), poll('a', 'ka', 1000, { state: 'CREATED', orderId: '1' })];
    expect(durable(ops, [order('1', 'a', 'ka', 5)]).violations).toBe(1);
    expect(durable(ops, [order('1', 'a', 'ka', 5, 'PENDING_PAYMENT', { quantity: 2 })]).violations).toBe(0);
  });

  it('holds a poll to no request sent after it', () => {
    const ops = [
      buy('a', 'ka', 0, pending, 1),
      poll('a', 'ka', 1000, { state: 'CREATED', orderId: '1' }),
      buy('a', 'ka', 2000, pending, 2),
    ];
    expect(durable(ops, [order('1', 'a', 'ka', 5)]).violations).toBe(0);
  });

  it('holds a poll to a request sent at its very instant', () => {
    const ops = [
      buy('a', 'ka', 0, pending, 1),
      buy('a', 'ka', 1000, pending, 2),
      poll('a', 'ka', 1000, { state: 'CREATED', orderId: '1' }),
    ];
    expect(durable(ops, [order('1', 'a', 'ka', 1005, 'PENDING_PAYMENT', { quantity: 2 })]).violations).toBe(0);
  });

  it('holds a poll to no request refused as another body under its key', () => {
    const ops = [
      buy('a', 'ka', 0, timeout, 1),
      buy('a', 'ka', 500, reused, 2),
      poll('a', 'ka', 1000, { state: 'CREATED', orderId: '1' }),
    ];
    expect(durable(ops, [order('1', 'a', 'ka', 5)]).violations).toBe(0);
  });

  it('holds a poll to its 202 before a later timeout', () => {
    const ops = [
      buy('a', 'ka', 0, pending, 1),
      buy('a', 'ka', 500, timeout, 2),
      poll('a', 'ka', 1000, { state: 'CREATED', orderId: '1' }),
    ];
    expect(durable(ops, [order('1', 'a', 'ka', 5)]).violations).toBe(0);
  });

  it('holds a poll to no 202 answered under another purchase id', () => {
    const ops = [
      buy('a', 'ka', 0, { ...pending, purchaseId: 'srv' }, 2),
      buy('a', 'ka', 500, timeout, 1),
      poll('a', 'ka', 1000, { state: 'CREATED', orderId: '1' }),
    ];
    expect(durable(ops, [order('1', 'a', 'ka', 5)]).violations).toBe(0);
  });
});

describe('refusals did nothing, and every order has a maker, at their edges', () => {
  it('judges a refusal of a purchase that has no order', () => {
    expect(refusals([buy('a', 'ka', 0, soldOut)]).refusals).toMatchObject({ checked: 1, violations: 0 });
    expect(refusals([buy('a', 'ka', 0, timeout)]).refusals.checked).toBe(0);
  });

  it("judges a poll's REFUSED of a purchase that has no order, and no other poll", () => {
    expect(
      refusals([buy('a', 'ka', 0, pending), poll('a', 'ka', 1000, { state: 'REFUSED', code: 'SOLD_OUT' })]).refusals
        .checked,
    ).toBe(1);
    expect(refusals([buy('a', 'ka', 0, pending), poll('a', 'ka', 1000, { state: 'PENDING' })]).refusals.checked).toBe(
      0,
    );
  });

  it('has nothing to judge of a purchase bought at once', () => {
    const r = refusals([buy('a', 'ka', 0, created('1'))], [order('1', 'a', 'ka', 5)]);
    expect([r.refusals.checked, r.explained.violations]).toEqual([0, 0]);
  });

  it('judges a refusal retried into an order', () => {
    const r = refusals(
      [buy('a', 'ka', 0, { status: 503, code: 'OVERLOADED' }), buy('a', 'ka', 700, created('1'))],
      [order('1', 'a', 'ka', 705)],
    );
    expect(r.refusals).toMatchObject({ checked: 1, violations: 0 });
  });

  it('takes a request sent exactly the allowance after the creation as its maker, not one ms later', () => {
    expect(refusals([buy('a', 'ka', 1000 + SKEW, timeout)], [order('1', 'a', 'ka', 1000)]).explained.violations).toBe(
      0,
    );
    expect(refusals([buy('a', 'ka', 1001 + SKEW, timeout)], [order('1', 'a', 'ka', 1000)]).explained.violations).toBe(
      1,
    );
  });

  it('takes a 201 answered exactly the allowance before the creation as its maker, not one ms earlier', () => {
    expect(
      refusals([buy('a', 'ka', 700, created('1'), 1, 50)], [order('1', 'a', 'ka', 1000)]).explained.violations,
    ).toBe(0);
    expect(
      refusals([buy('a', 'ka', 699, created('1'), 1, 50)], [order('1', 'a', 'ka', 1000)]).explained.violations,
    ).toBe(1);
  });

  it('blames a refusal sent exactly the allowance after the creation, not one ms later', () => {
    const on = refusals([buy('a', 'ka', 1000 + SKEW, soldOut)], [order('1', 'a', 'ka', 1000)]);
    expect([on.refusals.violations, on.explained.violations]).toEqual([1, 0]);
    const past = refusals([buy('a', 'ka', 1001 + SKEW, soldOut)], [order('1', 'a', 'ka', 1000)]);
    expect([past.refusals.violations, past.explained.violations]).toEqual([0, 1]);
  });

  it('blames a refusal answered exactly the allowance before the creation, not one ms earlier', () => {
    const on = refusals([buy('a', 'ka', 700, soldOut, 1, 50)], [order('1', 'a', 'ka', 1000)]);
    expect([on.refusals.violations, on.explained.violations]).toEqual([1, 0]);
    const past = refusals([buy('a', 'ka', 699, soldOut, 1, 50)], [order('1', 'a', 'ka', 1000)]);
    expect([past.refusals.violations, past.explained.violations]).toEqual([0, 1]);
  });

  it('lets one unanswered keyless purchase explain one order no request named, not two', () => {
    const keyless = buy('a', 'ka', 0, { ...timeout, key: undefined, purchaseId: undefined });
    expect(refusals([keyless], [order('1', 'a', 'srv1', 5)]).explained.violations).toBe(0);
    expect(refusals([keyless], [order('1', 'a', 'srv1', 5), order('2', 'a', 'srv2', 50)]).explained.violations).toBe(1);
  });
});

describe('one outcome per purchase id, at its edges', () => {
  it('sees two orders of one purchase id no request named, and not two without a purchase id', () => {
    const ops = [buy('a', 'ka', 0, created('1'))];
    expect(outcome(ops, [order('1', 'a', 'ka', 5), order('2', 'a', 'zz', 100), order('3', 'a', 'zz', 200)])).toBe(1);
    const none = (o: FinalOrder): FinalOrder => ({ ...o, purchaseId: null });
    expect(
      outcome(ops, [order('1', 'a', 'ka', 5), none(order('2', 'a', 'x', 100)), none(order('3', 'a', 'x', 200))]),
    ).toBe(0);
  });

  it('sees answers that named two orders, whichever the purchase kept', () => {
    const ops = [buy('a', 'ka', 0, created('1')), buy('a', 'ka', 100, created('2'))];
    expect(outcome(ops, [order('2', 'a', 'ka', 5)])).toBe(1);
  });

  it('sees a 201 or a CREATED poll naming another order than the purchase has', () => {
    expect(outcome([buy('a', 'ka', 0, created('2'))], [order('1', 'a', 'ka', 5)])).toBe(1);
    const ops = [buy('a', 'ka', 0, pending), poll('a', 'ka', 1000, { state: 'CREATED', orderId: '2' })];
    expect(outcome(ops, [order('1', 'a', 'ka', 5)])).toBe(1);
  });

  it('takes no order id from a refusal or a PENDING poll', () => {
    const limited = [
      buy('a', 'ka', 0, created('1')),
      buy('a', 'ka', 100, { status: 429, code: 'RATE_LIMITED', orderId: '9' }),
    ];
    expect(outcome(limited, [order('1', 'a', 'ka', 5)])).toBe(0);
    const polled = [buy('a', 'ka', 0, pending), poll('a', 'ka', 100, { state: 'PENDING', orderId: '9' })];
    expect(outcome(polled, [order('1', 'a', 'ka', 5)])).toBe(0);
  });

  it('excuses a late 422 only when it asked for another quantity or product', () => {
    const bought = buy('a', 'ka', 0, created('1'));
    const orders = [order('1', 'a', 'ka', 5)];
    expect(outcome([bought, buy('a', 'ka', 1000, reused, 2)], orders)).toBe(0);
    expect(outcome([bought, buy('a', 'ka', 1000, { ...reused, productId: '8' }, 1)], orders)).toBe(0);
    expect(outcome([bought, buy('a', 'ka', 1000, reused, 1)], orders)).toBe(1);
    expect(outcome([bought, buy('a', 'ka', 1000, soldOut, 2)], orders)).toBe(1);
  });

  it('takes a refusal sent exactly when the order surely existed as not yet late, one ms later as late', () => {
    const orders = [order('1', 'a', 'ka', 1000)];
    expect(outcome([buy('a', 'ka', 900, timeout), buy('a', 'ka', 1000 + SKEW, soldOut)], orders)).toBe(0);
    expect(outcome([buy('a', 'ka', 900, timeout), buy('a', 'ka', 1001 + SKEW, soldOut)], orders)).toBe(1);
  });

  it('takes a late 429, 503 or unsent request as no answer about the order', () => {
    const bought = buy('a', 'ka', 0, created('1'));
    const orders = [order('1', 'a', 'ka', 5)];
    expect(outcome([bought, buy('a', 'ka', 1000, { error: 'ECONNREFUSED' })], orders)).toBe(0);
    expect(outcome([bought, buy('a', 'ka', 1000, { status: 429, code: 'RATE_LIMITED' })], orders)).toBe(0);
    expect(outcome([bought, buy('a', 'ka', 1000, { status: 503, code: 'OVERLOADED' })], orders)).toBe(0);
  });

  it('takes a 409 answered exactly the allowance before the creation as not earlier, one ms more as earlier', () => {
    const orders = [order('1', 'a', 'ka', 1000)];
    expect(outcome([buy('a', 'ka', 700, soldOut, 1, 50), buy('a', 'ka', 900, timeout)], orders)).toBe(0);
    expect(outcome([buy('a', 'ka', 699, soldOut, 1, 50), buy('a', 'ka', 900, timeout)], orders)).toBe(1);
  });
});

describe('every answer about a purchase id fits its story, at its edges', () => {
  it('takes a 201 as telling the outcome even when its order is missing', () => {
    expect(answers([buy('a', 'ka', 0, created('1')), poll('a', 'ka', 1000, { state: 'PENDING' })])).toBe(1);
  });

  it('takes a CREATED poll as telling the outcome, a PENDING one not', () => {
    const created9 = poll('a', 'ka', 1000, { state: 'CREATED', orderId: '9' });
    expect(answers([buy('a', 'ka', 0, pending), created9, poll('a', 'ka', 2000, { state: 'PENDING' })])).toBe(1);
    const twice = [
      buy('a', 'ka', 0, pending),
      poll('a', 'ka', 1000, { state: 'PENDING' }),
      poll('a', 'ka', 2000, { state: 'PENDING' }),
    ];
    expect(answers(twice)).toBe(0);
  });

  it("takes a pay's answer as showing the purchase's order", () => {
    const ops = [buy('a', 'ka', 0, timeout), pay('1', 'a', 1000), poll('a', 'ka', 2000, { state: 'PENDING' })];
    expect(answers(ops, [order('1', 'a', 'ka', 100, 'PAID', { paidAt: 1005 })])).toBe(1);
  });

  it('takes a REFUSED poll as telling the outcome', () => {
    const ops = [
      buy('a', 'ka', 0, pending),
      poll('a', 'ka', 1000, { state: 'REFUSED', code: 'SOLD_OUT' }),
      poll('a', 'ka', 2000, { state: 'PENDING' }),
    ];
    expect(answers(ops)).toBe(1);
  });

  it('lets a 422 stand on a request of another product, sent up to its answer', () => {
    expect(
      answers(
        [buy('a', 'ka', 0, created('1')), buy('a', 'ka', 5, { ...reused, productId: '8' })],
        [order('1', 'a', 'ka', 5)],
      ),
    ).toBe(0);
    expect(
      answers([buy('a', 'ka', 0, reused, 1, 10), buy('a', 'ka', 10, created('1'), 2)], [order('1', 'a', 'ka', 12)]),
    ).toBe(0);
    expect(
      answers([buy('a', 'ka', 0, reused, 1, 10), buy('a', 'ka', 100, created('1'), 2)], [order('1', 'a', 'ka', 105)]),
    ).toBe(1);
    expect(answers([buy('a', 'ka', 0, created('1')), buy('a', 'ka', 100, reused)], [order('1', 'a', 'ka', 5)])).toBe(1);
  });
});

describe('stock reads, at their edges', () => {
  const other = (op: OpRecord): OpRecord => ({ ...op, productId: '8' }) as OpRecord;

  it("compares a product's own answered reads that showed a stock", () => {
    expect(rise([read(3, 0), other(read(50, 100))], [], {}, TWO).violations).toBe(0);
    expect(rise([read(1, 0), { ...read(50, 100), status: 503 }]).violations).toBe(0);
    expect(rise([read(1, 0), { ...read(1, 100), stock: undefined } as OpRecord]).checked).toBe(1);
  });

  it('judges a lone read once', () => {
    expect(rise([read(3, 0)]).checked).toBe(1);
    expect(rise([setStock(5, 0, timeout), read(3, 100)]).checked).toBe(1);
  });

  it('judges no read that ended at or after an unanswered stock set was sent', () => {
    const r = rise([read(3, 0), read(3, 95), setStock(5, 100, timeout)]);
    expect([r.checked, r.violations]).toEqual([1, 0]);
  });

  it('survives a read recorded as ending before it began', () => {
    expect(rise([read(3, 0), { ...read(3, 100), completeMs: T0 + 50 }]).violations).toBe(0);
  });

  it('pairs a read with one that ended before it was sent, not at that instant', () => {
    expect(rise([read(1, 0, 100), read(2, 100)]).violations).toBe(0);
    expect(rise([read(1, 0, 100), read(2, 101)]).violations).toBe(1);
  });

  it('lets a read be as stale as allowed', () => {
    expect(rise([read(1, 0), read(2, 500)], [], { staleReadMs: 1000 }).violations).toBe(0);
  });

  it('compares with the lowest earlier read, whatever order they ended in', () => {
    expect(rise([read(1, 0, 5), read(3, 0, 10), read(3, 100)]).violations).toBe(1);
  });

  it('takes reads in time order whatever order they were recorded in', () => {
    expect(rise([read(0, 1000), read(5, 10), read(0, 500)]).violations).toBe(0);
    expect(rise([read(1, 0, 3000), read(1, 0, 5), read(2, 1000)]).violations).toBe(1);
  });

  it("takes only the product's own stock sets that were not refused as a cause", () => {
    expect(rise([read(1, 0), other(setStock(5, 100)), read(3, 500)], [], {}, TWO).violations).toBe(1);
    expect(rise([read(1, 0), setStock(5, 100, { status: 400, code: 'VALIDATION' }), read(3, 500)]).violations).toBe(1);
    expect(rise([read(1, 0), setStock(5, 100), read(3, 500)]).violations).toBe(0);
  });

  it("takes only the product's own ended orders as giving units back", () => {
    const cancelled = { ...order('1', 'b', 'kb', 100, 'CANCELLED'), productId: '8' };
    expect(rise([read(1, 0), read(2, 2000)], [cancelled], {}, TWO).violations).toBe(1);
    expect(rise([read(1, 0), read(2, 2000)], [order('1', 'b', 'kb', 100, 'CANCELLED')]).violations).toBe(0);
  });

  it('lets a closed order give its unit back up to the allowance after its close time', () => {
    // Closed at 1100 (database clock): its unit may come back until 1600 on the client's, after a read sent at 1200.
    expect(rise([read(1, 1200), read(2, 2000)], [order('1', 'b', 'kb', 100, 'CANCELLED')]).violations).toBe(0);
  });

  it('counts an order made from the allowance before its creation, not at that instant', () => {
    expect(fall([read(3, 0), read(2, 1000)], [order('1', 'a', 'ka', 1005 + SKEW)]).violations).toBe(1);
    expect(fall([read(3, 0), read(2, 1000)], [order('1', 'a', 'ka', 1004 + SKEW)]).violations).toBe(0);
  });

  it('takes an order shown by the instant a read was sent as made before it', () => {
    const shown = buy('a', 'ka', 90, created('1'), 1, 20);
    expect(fall([shown, read(3, 110), read(2, 500)], [order('1', 'a', 'ka', 100)]).violations).toBe(1);
    expect(fall([shown, read(3, 109), read(2, 500)], [order('1', 'a', 'ka', 100)]).violations).toBe(0);
  });

  it("takes only the product's own orders as taking units", () => {
    const elsewhere = { ...order('1', 'b', 'kb', 500), productId: '8' };
    const built = model([read(3, 0), read(2, 1000)], [elsewhere], {}, TWO);
    expect(stockReadsFallByOrders(built).violations).toBe(1);
  });

  it('needs no pre-existing orders to judge reads and admissions', () => {
    const built = model([read(3, 0), join('a', 0, { state: 'ADMITTED', ticketId: '1' })]);
    const spans = orderSpans(built);
    expect(stockReadsMonotone(built, spans).violations).toBe(0);
    expect(stockReadsWithinSupply(built, spans).violations).toBe(0);
    expect(admissionsWithinStock(built, queueAnswers(built), spans).violations).toBe(0);
  });

  it('lets an order made between two reads explain their fall', () => {
    expect(
      fall([read(3, 0), buy('a', 'ka', 400, created('1')), read(2, 1000)], [order('1', 'a', 'ka', 405)]).violations,
    ).toBe(0);
  });
});

describe('no purchase on a queued product without an admission, at its edges', () => {
  const ticket = (state: string) => ({ state, ticketId: '1' });
  const made = [order('1', 'a', 'ka', 1000)];

  it('takes an admission asked for up to the allowance after the order was made, not one ms later', () => {
    expect(admitted([join('a', 1000 + SKEW, ticket('ADMITTED'))], made)).toBe(0);
    expect(admitted([join('a', 1001 + SKEW, ticket('ADMITTED'))], made)).toBe(1);
  });

  it('takes no WAITING answer as an admission', () => {
    expect(admitted([join('a', 0, ticket('WAITING'))], made)).toBe(1);
  });

  it('takes an EXPIRED answer asked for as the admission was answered as ending it', () => {
    expect(admitted([join('a', 0, ticket('ADMITTED')), queuePoll('a', 5, ticket('EXPIRED'))], made)).toBe(1);
  });

  it('takes an EXPIRED answer as before the order only when it came more than the allowance before', () => {
    expect(admitted([join('a', 0, ticket('ADMITTED')), queuePoll('a', 1000 - SKEW - 5, ticket('EXPIRED'))], made)).toBe(
      0,
    );
    expect(admitted([join('a', 0, ticket('ADMITTED')), queuePoll('a', 1000 - SKEW - 6, ticket('EXPIRED'))], made)).toBe(
      1,
    );
  });

  it('does not judge an order of a user the history has no operation of', () => {
    expect(admitted([join('a', 0, ticket('ADMITTED'))], [order('1', 'z', 'kz', 1000)])).toBe(0);
  });

  it('takes the latest admission by when it was asked for, whatever order it was recorded in', () => {
    const ops = [
      queuePoll('a', 0, ticket('ADMITTED')),
      queuePoll('a', 100, ticket('EXPIRED')),
      join('a', 200, ticket('ADMITTED')),
    ];
    expect(admitted(ops, made)).toBe(0);
  });
});

describe('outstanding admissions never exceed the stock, at their edges', () => {
  const ONE_UNIT = meta({ initialStock: 1, perUserLimit: 1 });
  const ticket = (state: string, ticketId: string) => ({ state, ticketId });
  const within = (ops: OpRecord[], orders: FinalOrder[]) => {
    const built = model(ops, orders, {}, ONE_UNIT);
    return admissionsWithinStock(built, queueAnswers(built), orderSpans(built)).violations;
  };
  // b is admitted at 2005 and surely holds it until it asks again at 2500.
  const b = [join('b', 2000, ticket('ADMITTED', '2')), queuePoll('b', 2500, ticket('ADMITTED', '2'))];

  it("holds a user's admission until the allowance before its first order", () => {
    const a = [join('a', 0, ticket('ADMITTED', '1'))];
    expect(within([...a, ...b], [order('1', 'a', 'ka', 3000)])).toBe(1);
    expect(within([...a, ...b], [order('1', 'a', 'ka', 2200)])).toBe(0);
    expect(within([...a, ...b], [order('1', 'a', 'ka', 2200), order('2', 'a', 'kb', 3000)])).toBe(0);
    expect(within([...a, ...b], [order('2', 'a', 'kb', 3000), order('1', 'a', 'ka', 2200)])).toBe(0);
  });

  it('holds an admission without an order only until its last ADMITTED answer was asked for', () => {
    const a = [
      join('a', 0, ticket('ADMITTED', '1')),
      queuePoll('a', 100, ticket('ADMITTED', '1')),
      queuePoll('a', 3000, ticket('EXPIRED', '1')),
    ];
    expect(within([...a, ...b], [])).toBe(0);
  });
});

describe('no stock read shows more than was left for sale, at its edges', () => {
  it('lets a read be served as stale as allowed, from before an order it does not show', () => {
    const ops = [buy('a', 'ka', 90, created('1')), read(10, 500)];
    const check = (staleReadMs: number) => {
      const built = model(ops, [order('1', 'a', 'ka', 95)], { staleReadMs });
      return stockReadsWithinSupply(built, orderSpans(built), []).violations;
    };
    expect(check(1000)).toBe(0);
    expect(check(0)).toBe(1);
  });
});

describe('admissions follow ticket order, at their edges', () => {
  const ticket = (state: string, ticketId: string, more: object = {}) => ({ state, ticketId, ...more });
  const inOrder = (ops: OpRecord[], m: MetaRecord = ONE) => {
    const built = model(ops, [], {}, m);
    return admissionsInOrder(built, queueAnswers(built)).violations;
  };
  // b took ticket 2 and was admitted at 2005.
  const b = [join('b', 1500, ticket('WAITING', '2')), queuePoll('b', 2000, ticket('ADMITTED', '2'))];

  it('judges the tickets of a product the meta record does not name', () => {
    expect(inOrder([{ ...join('b', 0, ticket('WAITING', '2')), productId: '9' } as OpRecord])).toBe(0);
  });

  it('leaves out a ticket whose join straddled the sale start', () => {
    const started = meta({ waitingRoom: { saleStartsAtMs: T0 + 1000, seed: null } });
    const a = [
      join('a', 990, ticket('WAITING', '1', { completeMs: T0 + 1010 })),
      queuePoll('a', 3000, ticket('WAITING', '1')),
    ];
    expect(inOrder([...a, ...b], started)).toBe(0);
  });

  it('takes a ticket as admitted only by an ADMITTED answer', () => {
    const a = [
      join('a', 0, ticket('WAITING', '1')),
      queuePoll('a', 3000, ticket('WAITING', '1')),
      queuePoll('a', 3500, ticket('ADMITTED', '1')),
    ];
    const late = [join('b', 100, ticket('WAITING', '2')), queuePoll('b', 4000, ticket('ADMITTED', '2'))];
    expect(inOrder([...a, ...late])).toBe(0);
  });

  it('places a ticket known only from its polls', () => {
    const a = [queuePoll('a', 0, ticket('WAITING', '1')), queuePoll('a', 3000, ticket('WAITING', '1'))];
    expect(inOrder([...a, ...b])).toBe(1);
  });
});
