import { ContractOrder } from './api-client';
import { InvariantResult } from './types';

const LIVE = new Set(['PENDING_PAYMENT', 'PAID']);

export interface AuditSnapshot {
  stock: number;
  orders: ContractOrder[];
}

export interface InvariantInput {
  /** Before the load: the product's stock and its orders then (none for a product the run created). */
  start: AuditSnapshot;
  end: AuditSnapshot;
  perUserLimit: number;
  /** Users of this run are `<userPrefix><n>`. */
  userPrefix: string;
  /** Distinct order ids the tool received with a 201. */
  createdOrderIds: ReadonlySet<string>;
  /** Attempts that ended without a definite answer (transport error, or 503/429 after the last retry). */
  unresolvedAttempts: number;
  attempts: number;
  retries: number;
  users: number;
  quantity: number;
}

const liveUnits = (orders: ContractOrder[]): number =>
  orders.reduce((sum, o) => sum + (LIVE.has(o.status) ? o.quantity : 0), 0);

/**
 * Units sold beyond the stock, as a number for `--fail-on oversell>0`: live orders' units past
 * those that existed, or a stock below zero, whichever is larger (0 when nothing was oversold).
 */
export function oversoldUnits(start: AuditSnapshot, end: AuditSnapshot): number {
  const existed = start.stock + liveUnits(start.orders);
  return Math.max(0, liveUnits(end.orders) - existed, -end.stock);
}

/** The contract's invariants, checked on what the admin API shows before and after the run. */
export function checkInvariants(input: InvariantInput): InvariantResult[] {
  const { start, end } = input;
  const startLive = liveUnits(start.orders);
  const endLive = liveUnits(end.orders);
  // Units are conserved between stock and live orders; for a fresh product startLive is 0 and this
  // is the contract's "initial stock = stock + Σ live quantity".
  const totalUnits = start.stock + startLive;
  const results: InvariantResult[] = [
    {
      name: 'stock >= 0',
      ok: end.stock >= 0,
      severity: 'error',
      detail: `final stock ${end.stock}`,
    },
    {
      name: 'conservation',
      ok: end.stock + endLive === totalUnits,
      severity: 'error',
      detail: `initial ${start.stock}${startLive ? ` + ${startLive} live before the run` : ''} vs final stock ${end.stock} + ${endLive} in live orders (= ${end.stock + endLive})`,
    },
    perUserLimit(end.orders, input.perUserLimit),
    {
      name: 'nothing sold beyond stock',
      ok: endLive <= totalUnits,
      severity: 'error',
      detail: `${endLive} units in live orders, ${totalUnits} units existed`,
    },
    ...durability(input),
    soldOut(input),
  ];
  return results;
}

function perUserLimit(orders: ContractOrder[], limit: number): InvariantResult {
  const perUser = new Map<string, number>();
  for (const order of orders)
    if (LIVE.has(order.status)) perUser.set(order.userId, (perUser.get(order.userId) ?? 0) + order.quantity);
  const over = [...perUser].filter(([, units]) => units > limit);
  return {
    name: 'per-user limit',
    ok: over.length === 0,
    severity: 'error',
    detail: over.length
      ? `${over.length} user(s) over ${limit}: ${over
          .slice(0, 5)
          .map(([user, units]) => `${user}=${units}`)
          .join(', ')}${over.length > 5 ? ', ...' : ''}`
      : `${perUser.size} buyer(s), none over ${limit}`,
  };
}

function durability(input: InvariantInput): InvariantResult[] {
  const startIds = new Set(input.start.orders.map((o) => o.id));
  const runOrders = input.end.orders.filter((o) => o.userId.startsWith(input.userPrefix) && !startIds.has(o.id));
  const runOrderIds = new Set(runOrders.map((o) => o.id));
  const missing = [...input.createdOrderIds].filter((id) => !runOrderIds.has(id));
  const extra = runOrders.length - (input.createdOrderIds.size - missing.length);
  const results: InvariantResult[] = [
    {
      name: 'every 201 is durable',
      ok: missing.length === 0,
      severity: 'error',
      detail: missing.length
        ? `${missing.length} order(s) answered 201 are not in GET /orders: ${missing.slice(0, 5).join(', ')}`
        : `${input.createdOrderIds.size} order(s) answered 201, all found; ${runOrders.length} order(s) exist for the run's users`,
    },
  ];
  // An order the tool never saw a 201 for is explained only by a lost answer (the attempt ended on
  // a transport error or a refusal after its last retry); beyond those it is a silent sale.
  if (extra > 0) {
    const explained = extra <= input.unresolvedAttempts;
    results.push({
      name: 'no orders without a 201',
      ok: false,
      severity: explained ? 'warning' : 'error',
      detail: `${extra} order(s) exist that no 201 reported; ${input.unresolvedAttempts} attempt(s) ended without a definite answer`,
    });
  } else {
    results.push({
      name: 'no orders without a 201',
      ok: true,
      severity: 'error',
      detail: `201s seen = orders created (${runOrders.length})`,
    });
  }
  return results;
}

/** Units the run's users could buy: attempts go round-robin over users, each capped by the per-user limit. */
export function demandUnits(attempts: number, users: number, perUserLimit: number, quantity: number): number {
  if (users <= 0 || quantity <= 0) return 0;
  const buysPerUser = Math.floor(perUserLimit / quantity);
  const base = Math.floor(attempts / users);
  const rest = attempts % users;
  return quantity * (rest * Math.min(base + 1, buysPerUser) + (users - rest) * Math.min(base, buysPerUser));
}

function soldOut(input: InvariantInput): InvariantResult {
  const supply = input.start.stock;
  const demand = demandUnits(input.attempts, input.users, input.perUserLimit, input.quantity);
  const name = 'sold out when demand >= supply';
  if (demand < supply)
    return { name, ok: true, severity: 'warning', detail: `not applicable: demand ${demand} < supply ${supply}` };
  return {
    name,
    ok: input.end.stock === 0,
    severity: 'warning',
    detail: `demand ${demand} >= supply ${supply}, ${input.retries} retries; final stock ${input.end.stock}`,
  };
}
