import { FinalOrder, OpRecord } from '../../scripts/history/format';
import { HistoryLog } from '../../scripts/history/writer';
import { buy, cancel, meta, order, pay, poll, read } from './support/records';

/**
 * A sale of `size` operations (100,000 by default) as a load test records it: 30% of them units
 * bought by 201s and by 202s resolved by a poll, refusals, reads, pays and cancels, about 2,000
 * operations a second.
 */
export function bigSale(size = 100_000): { log: HistoryLog; orders: FinalOrder[] } {
  const units = Math.round(size * 0.3);
  const log = new HistoryLog('speed', meta({ initialStock: units, paymentTtlS: 900 }).products);
  const orders: FinalOrder[] = [];
  let stock = units;
  let n = 0;
  const add = (op: OpRecord) => log.add(op);
  while (log.ops.length < size) {
    const t = n / 2;
    const user = `u${n}`;
    const key = `k${n}`;
    const kind = n % 20;
    if (kind === 0) add(read(stock, t, 2));
    else if (stock > 0 && kind < 12) {
      const id = String(orders.length + 1);
      if (kind === 11) {
        add(buy(user, key, t, { status: 202, code: 'PURCHASE_PENDING' }, 1, 5));
        add(poll(user, key, t + 20, { state: 'CREATED', orderId: id }));
      } else add(buy(user, key, t, { status: 201, orderId: id }, 1, 5));
      if (kind === 3) {
        add(pay(id, user, t + 30));
        orders.push(order(id, user, key, t + 2, 'PAID', { ttlMs: 900_000, paidAt: t + 32 }));
      } else if (kind === 5) {
        add(cancel(id, 'user', t + 30));
        orders.push(order(id, user, key, t + 2, 'CANCELLED', { ttlMs: 900_000, closedAt: t + 32 }));
        stock++;
      } else orders.push(order(id, user, key, t + 2, 'PENDING_PAYMENT', { ttlMs: 900_000 }));
      stock--;
    } else add(buy(user, key, t, { status: 409, code: 'SOLD_OUT' }, 1, 5));
    n++;
  }
  return { log, orders };
}

