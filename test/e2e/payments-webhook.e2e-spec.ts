/**
 * POST /payments/webhook against the real app: the signature over the raw body, each event id
 * applied once, the amount against the order's total, events for orders that can no longer be
 * paid, and a payment racing the expiry job on the same order. Ground truth is read from Postgres.
 */
import { createHmac } from 'node:crypto';
import { Client } from 'pg';
import { OrderExpiryService } from '../../apps/api/src/orders/order-expiry.service';
import { ApiProcess } from '../../scripts/infra/api-process';
import { AppHarness, startApp, TEST_JWT_SECRET } from '../support/app-harness';
import { Api, ApiResponse, expectContractError, expectInvariants, httpSender, injectSender, Order, withPg } from '../support/api-client';
import { skewedClockEnv } from '../chaos/support/faketime';
import { freePort } from '../support/free-port';
import { withLostReply } from '../support/lost-reply';
import { auth } from '../support/tokens';

jest.setTimeout(90_000);

const SECRET = 'whsec_e2e-secret-of-at-least-thirty-two-bytes';
const PRICE = 1250;

interface PaymentEvent {
  eventId: string;
  type: 'payment.succeeded' | 'payment.failed';
  orderId: string;
  amountCents: number;
}

let eventCounter = 0;
const newEventId = () => `evt_${process.pid}_${Date.now().toString(36)}_${++eventCounter}`;

/** Signed the way the provider signs: hex HMAC-SHA256 of "<t>.<raw body>", computed here independently of the app. */
const sign = (secret: string, t: number, raw: string) => createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');
const nowS = () => Math.floor(Date.now() / 1000);
const succeeded = (order: Order, amountCents = PRICE * order.quantity): PaymentEvent => ({ eventId: newEventId(), type: 'payment.succeeded', orderId: order.id, amountCents });

describe('POST /payments/webhook', () => {
  let harness: AppHarness;
  let api: Api;
  let db: string;

  const deliver = (raw: string, signature?: string): Promise<ApiResponse> =>
    api.send({
      method: 'POST',
      url: '/payments/webhook',
      headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'payment-signature': signature }) },
      payload: raw,
    });
  const deliverSigned = (event: PaymentEvent, t = nowS(), secret = SECRET) => {
    const raw = JSON.stringify(event);
    return deliver(raw, `t=${t},v1=${sign(secret, t, raw)}`);
  };
  const eventRows = (orderId: string) =>
    withPg(db, async (pg) => (await pg.query('SELECT event_id, type, result FROM payment_events WHERE order_id = $1 ORDER BY received_at', [orderId])).rows);
  const orderRow = (orderId: string) =>
    withPg(db, async (pg) => (await pg.query('SELECT status, paid_at FROM orders WHERE id = $1', [orderId])).rows[0] as { status: string; paid_at: Date | null });

  async function pendingOrder(buyer: string, quantity = 1, stock = 10): Promise<Order> {
    const product = await api.createProduct({ stock, perUserLimit: 5, priceCents: PRICE });
    const res = await api.purchase(product.id, buyer, { quantity });
    expect(res.status).toBe(201);
    return res.body;
  }

  beforeAll(async () => {
    // Not a test of the budgets: one address (the test's) sends bursts of events.
    harness = await startApp({ PAYMENT_WEBHOOK_SECRET: SECRET, RATE_LIMIT_PER_SECOND: '100000', PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS: '100000' });
    api = new Api(injectSender(harness.app));
    db = harness.env.DATABASE_URL;
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('a correctly signed payment.succeeded pays a pending order: 200 PAID, and the order reads PAID', async () => {
    const order = await pendingOrder('wh-payer', 2);
    const event = succeeded(order);
    const res = await deliverSigned(event);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ eventId: event.eventId, orderId: order.id, result: 'PAID' });
    expect((await orderRow(order.id)).status).toBe('PAID');
    expect((await api.getOrder(order.id, auth('wh-payer'))).body).toMatchObject({ status: 'PAID', paidAt: expect.any(String) });
    await expectInvariants(db, order.productId);
  });

  it('applies an event id once: a replay answers ALREADY_PROCESSED, and simultaneous deliveries pay once', async () => {
    const order = await pendingOrder('wh-replayer');
    const event = succeeded(order);
    expect((await deliverSigned(event)).body.result).toBe('PAID');
    const paidAt = (await orderRow(order.id)).paid_at;
    const replay = await deliverSigned(event);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ eventId: event.eventId, orderId: order.id, result: 'ALREADY_PROCESSED' });
    expect(await eventRows(order.id)).toEqual([{ event_id: event.eventId, type: 'payment.succeeded', result: 'PAID' }]);
    expect((await orderRow(order.id)).paid_at).toEqual(paidAt);

    const other = await pendingOrder('wh-racer');
    const racing = succeeded(other);
    const answers = await Promise.all(Array.from({ length: 8 }, () => deliverSigned(racing)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.map((a) => a.body.result).sort()).toEqual(['PAID', ...Array(7).fill('ALREADY_PROCESSED')].sort());
    expect(await eventRows(other.id)).toHaveLength(1);
  });

  it('401 SIGNATURE_INVALID for a missing, wrong-secret, tampered or stale signature; nothing is recorded', async () => {
    const order = await pendingOrder('wh-forged');
    const event = succeeded(order);
    const raw = JSON.stringify(event);
    const t = nowS();
    const refusals = [
      await deliver(raw),
      await deliver(raw, ''),
      await deliver(raw, `t=${t}`),
      await deliverSigned(event, t, 'not-the-provider-secret-but-long-enough'),
      // The signature of the body the provider sent, on a body someone changed.
      await deliver(JSON.stringify({ ...event, amountCents: 1 }), `t=${t},v1=${sign(SECRET, t, raw)}`),
      // Re-serialised JSON is other bytes: the signature is over the raw body.
      await deliver(JSON.stringify(event, null, 2), `t=${t},v1=${sign(SECRET, t, raw)}`),
      // Stamped as each is sent, clear of the 300 s window: a stamp of t + 301 became valid when the
      // clock passed the next second during the deliveries before it. The exact edge is in
      // webhook-signature.spec.ts, on a fixed clock.
      await deliverSigned(event, nowS() - 301),
      await deliverSigned(event, nowS() + 310),
    ];
    for (const res of refusals) expectContractError(res, 401, 'SIGNATURE_INVALID');
    expect(await eventRows(order.id)).toEqual([]);
    expect((await orderRow(order.id)).status).toBe('PENDING_PAYMENT');
    // The same event, properly signed, still goes through: the refusals left no trace.
    expect((await deliverSigned(event)).body.result).toBe('PAID');
  });

  it('accepts any of several v1 signatures (a provider rotating its secret) and a timestamp within 300 s', async () => {
    const order = await pendingOrder('wh-rotated');
    const event = succeeded(order);
    const raw = JSON.stringify(event);
    const t = nowS() - 250;
    const res = await deliver(raw, `t=${t},v1=${sign('the-previous-provider-secret-32-bytes!', t, raw)},v1=${sign(SECRET, t, raw)}`);
    expect(res.status).toBe(200);
    expect(res.body.result).toBe('PAID');
  });

  it("422 AMOUNT_MISMATCH when the amount is not the order's total (price x quantity); nothing is recorded", async () => {
    const order = await pendingOrder('wh-short', 2);
    for (const amountCents of [PRICE, PRICE * 2 - 1, PRICE * 2 + 1, 0]) {
      const event = succeeded(order, amountCents);
      expectContractError(await deliverSigned(event), 422, 'AMOUNT_MISMATCH');
    }
    expect(await eventRows(order.id)).toEqual([]);
    expect((await orderRow(order.id)).status).toBe('PENDING_PAYMENT');
    expect((await deliverSigned(succeeded(order, PRICE * 2))).body.result).toBe('PAID');
  });

  it('an order that expired or was cancelled meanwhile: 200 ORDER_NOT_PAYABLE, recorded, and the order stays as it was', async () => {
    const expired = await pendingOrder('wh-late', 1, 3);
    await withPg(db, (pg) => pg.query("UPDATE orders SET expires_at = now() - interval '1 second' WHERE id = $1", [expired.id]));
    await harness.app.get(OrderExpiryService).expireDue();
    expect((await orderRow(expired.id)).status).toBe('EXPIRED');
    const late = succeeded(expired);
    const res = await deliverSigned(late);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ eventId: late.eventId, orderId: expired.id, result: 'ORDER_NOT_PAYABLE' });
    expect((await orderRow(expired.id)).status).toBe('EXPIRED');
    expect(await eventRows(expired.id)).toEqual([{ event_id: late.eventId, type: 'payment.succeeded', result: 'ORDER_NOT_PAYABLE' }]);
    expect((await deliverSigned(late)).body.result).toBe('ALREADY_PROCESSED');
    const report = await expectInvariants(db, expired.productId);
    expect(report).toMatchObject({ stock: 3, live: 0 });

    const cancelled = await pendingOrder('wh-changed-mind');
    expect((await api.cancel(cancelled.id, auth('wh-changed-mind'))).status).toBe(200);
    expect((await deliverSigned(succeeded(cancelled))).body.result).toBe('ORDER_NOT_PAYABLE');
    expect((await orderRow(cancelled.id)).status).toBe('CANCELLED');

    // A second successful payment of a paid order is refunded the same way.
    const paid = await pendingOrder('wh-double');
    expect((await deliverSigned(succeeded(paid))).body.result).toBe('PAID');
    expect((await deliverSigned(succeeded(paid))).body.result).toBe('ORDER_NOT_PAYABLE');
  });

  it('payment.failed is recorded (FAILED_RECORDED) and leaves the order pending', async () => {
    const order = await pendingOrder('wh-declined');
    const event: PaymentEvent = { ...succeeded(order), type: 'payment.failed' };
    const res = await deliverSigned(event);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ eventId: event.eventId, orderId: order.id, result: 'FAILED_RECORDED' });
    expect(await eventRows(order.id)).toEqual([{ event_id: event.eventId, type: 'payment.failed', result: 'FAILED_RECORDED' }]);
    expect((await orderRow(order.id)).status).toBe('PENDING_PAYMENT');
    expect((await deliverSigned(event)).body.result).toBe('ALREADY_PROCESSED');
  });

  it("ignores the provider's own extra fields, and refuses (422, nothing recorded) an event in another currency", async () => {
    const order = await pendingOrder('wh-currency');
    for (const currency of ['eur', 'JPY']) expectContractError(await deliverSigned({ ...succeeded(order), currency } as PaymentEvent), 422, 'AMOUNT_MISMATCH');
    expect(await eventRows(order.id)).toEqual([]);
    const event = { ...succeeded(order), currency: 'USD', livemode: false, created: nowS(), metadata: { cart: 'c-1' }, object: 'event' };
    const res = await deliverSigned(event as PaymentEvent);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ eventId: event.eventId, orderId: order.id, result: 'PAID' });
  });

  it('404 ORDER_NOT_FOUND for an unknown order and 400 for a malformed event, signed or not; neither is recorded', async () => {
    const ghost: PaymentEvent = { eventId: newEventId(), type: 'payment.succeeded', orderId: '987654321', amountCents: PRICE };
    expectContractError(await deliverSigned(ghost), 404, 'ORDER_NOT_FOUND');
    // The largest bigint is a well-formed id (of no order); one past it is malformed.
    expectContractError(await deliverSigned({ ...ghost, eventId: newEventId(), orderId: '9223372036854775807' }), 404, 'ORDER_NOT_FOUND');
    const order = await pendingOrder('wh-malformed');
    for (const bad of [{ ...succeeded(order), currency: 'dollars' }, { ...succeeded(order), type: 'payment.refunded' }, { ...succeeded(order), orderId: 7 }, { ...succeeded(order), orderId: '9223372036854775808' }, { ...succeeded(order), amountCents: '1250' }]) {
      expectContractError(await deliverSigned(bad as unknown as PaymentEvent), 400, 'VALIDATION_FAILED');
    }
    const total = await withPg(db, async (pg) => Number((await pg.query("SELECT count(*) FROM payment_events WHERE order_id = $1 OR event_id = $2", [order.id, ghost.eventId])).rows[0].count));
    expect(total).toBe(0);
    // Other routes keep the plain JSON parser: a purchase body still parses and validates as before.
    expectContractError(await api.send({ method: 'POST', url: `/products/${order.productId}/purchase`, headers: { ...auth('wh-malformed'), 'content-type': 'application/json' }, payload: '{"quantity":' }), 400, 'VALIDATION_FAILED');
  });

  /** The webhook's database reply is lost while the test holds the order's row; `finish` runs in the holder before it lets go. */
  const deliverWithLostReply = (event: PaymentEvent, finish: (holder: Client) => Promise<unknown>): Promise<ApiResponse> =>
    withLostReply(db, event.orderId, () => deliverSigned(event), finish);

  it('a delivery whose database reply is lost answers from the event row: its result if recorded, else 503', async () => {
    const order = await pendingOrder('wh-lost');
    const event = succeeded(order);
    const refused = await deliverWithLostReply(event, async () => undefined);
    expectContractError(refused, 503, 'DEPENDENCY_UNAVAILABLE');
    expect(await eventRows(order.id)).toEqual([]);
    expect((await orderRow(order.id)).status).toBe('PENDING_PAYMENT');

    // As if the lost transaction had committed: the event row and the order's change are there.
    const answered = await deliverWithLostReply(event, async (holder) => {
      await holder.query("INSERT INTO payment_events (event_id, order_id, type, amount_cents, result) VALUES ($1, $2, 'payment.succeeded', $3, 'PAID')", [event.eventId, order.id, event.amountCents]);
      await holder.query("UPDATE orders SET status = 'PAID', paid_at = now() WHERE id = $1", [order.id]);
    });
    expect({ status: answered.status, body: answered.body }).toEqual({ status: 200, body: { eventId: event.eventId, orderId: order.id, result: 'PAID' } });
  });

  it('a payment racing the expiry job on the same due order: PAID xor EXPIRED, and each answer says which', async () => {
    const product = await api.createProduct({ stock: 40, perUserLimit: 1, priceCents: PRICE });
    const orders: Order[] = [];
    for (let i = 0; i < 40; i++) orders.push((await api.purchase(product.id, `wh-race-${i}`)).body);
    // Every order falls due in 300 ms, while the payments are on their way.
    await withPg(db, (pg) => pg.query("UPDATE orders SET expires_at = now() + interval '300 milliseconds' WHERE product_id = $1", [product.id]));
    const expiry = harness.app.get(OrderExpiryService);
    const payments = orders.map(async (order, i) => {
      await new Promise((r) => setTimeout(r, (i * 17) % 600));
      return deliverSigned(succeeded(order));
    });
    const sweeps = [250, 300, 350, 450, 700].map(async (ms) => {
      await new Promise((r) => setTimeout(r, ms));
      await expiry.expireDue();
    });
    const answers = await Promise.all(payments);
    await Promise.all(sweeps);
    await expiry.expireDue();
    const statuses = await withPg(db, async (pg) => new Map((await pg.query('SELECT id::text, status FROM orders WHERE product_id = $1', [product.id])).rows.map((r) => [r.id, r.status])));
    answers.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(statuses.get(orders[i].id)).toBe(res.body.result === 'PAID' ? 'PAID' : 'EXPIRED');
    });
    const paid = answers.filter((a) => a.body.result === 'PAID').length;
    const report = await expectInvariants(db, product.id);
    expect(report.ordersByStatus).toEqual({ ...(paid ? { PAID: paid } : {}), ...(paid < 40 ? { EXPIRED: 40 - paid } : {}) });
    expect(report.stock).toBe(40 - paid);
  });
});

describe('an instance whose own clock runs 10 minutes fast (libfaketime), beside a database on time', () => {
  const SKEW_S = 600;
  let harness: AppHarness;
  let skewed: ApiProcess;
  let api: Api;

  beforeAll(async () => {
    // The database and Redis of an in-process instance on the right time; the skewed one shares them.
    harness = await startApp({ PAYMENT_WEBHOOK_SECRET: SECRET });
    skewed = new ApiProcess({
      port: await freePort(),
      env: { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: harness.env.DATABASE_URL, REDIS_URL: harness.env.REDIS_URL, JWT_SECRET: TEST_JWT_SECRET, PAYMENT_WEBHOOK_SECRET: SECRET, ...skewedClockEnv(`+${SKEW_S / 60}m`) },
    });
    await skewed.start(60_000);
    api = new Api(httpSender(skewed.url));
  });
  afterAll(async () => {
    await skewed?.stop();
    await harness?.close();
  });

  const deliverTo = (event: PaymentEvent, t: number) => {
    const raw = JSON.stringify(event);
    return api.send({ method: 'POST', url: '/payments/webhook', headers: { 'content-type': 'application/json', 'payment-signature': `t=${t},v1=${sign(SECRET, t, raw)}` }, payload: raw });
  };

  it('really runs ahead: its Date header is 10 minutes past ours', async () => {
    const res = await fetch(`${skewed.url}/health/live`);
    const aheadS = (Date.parse(res.headers.get('date')!) - Date.now()) / 1000;
    expect(Math.abs(aheadS - SKEW_S)).toBeLessThan(5);
  });

  it("pays a fresh event for an order it sold, judging the signature's age by the database's clock", async () => {
    const product = await api.createProduct({ stock: 5, priceCents: PRICE });
    const bought = await api.purchase(product.id, 'wh-skewed-buyer');
    expect(bought.status).toBe(201);
    const order: Order = bought.body;
    // Its orders keep their whole window: the database stamps them, not the instance.
    expect((Date.parse(order.expiresAt) - Date.parse(order.createdAt)) / 1000).toBe(900);
    expect(Math.abs(Date.parse(order.createdAt) - Date.now())).toBeLessThan(30_000);
    const event = succeeded(order);
    const res = await deliverTo(event, nowS());
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { eventId: event.eventId, orderId: order.id, result: 'PAID' } });
    expect((await withPg(harness.env.DATABASE_URL, async (pg) => (await pg.query('SELECT status FROM orders WHERE id = $1', [order.id])).rows[0])).status).toBe('PAID');
  });

  it('still refuses a stale event, and one stamped by a clock as fast as its own', async () => {
    const product = await api.createProduct({ stock: 5, priceCents: PRICE });
    const order: Order = (await api.purchase(product.id, 'wh-skewed-stale')).body;
    expectContractError(await deliverTo(succeeded(order), nowS() - 310), 401, 'SIGNATURE_INVALID');
    expectContractError(await deliverTo(succeeded(order), nowS() + SKEW_S), 401, 'SIGNATURE_INVALID');
    expect((await deliverTo(succeeded(order), nowS())).body.result).toBe('PAID');
  });
});

describe('payments switched off: no PAYMENT_WEBHOOK_SECRET, PAYMENTS_DIRECT=false', () => {
  let harness: AppHarness;
  let api: Api;

  beforeAll(async () => {
    harness = await startApp({ PAYMENTS_DIRECT: 'false' });
    api = new Api(injectSender(harness.app));
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('the webhook and the direct pay route answer 404 exactly like a route that does not exist', async () => {
    const product = await api.createProduct({ stock: 2, priceCents: PRICE });
    const order: Order = (await api.purchase(product.id, 'no-direct')).body;
    const unknown = await api.send({ method: 'POST', url: `/orders/${order.id}/refund`, headers: auth('no-direct') });
    expect(unknown.status).toBe(404);
    const pay = await api.pay(order.id, auth('no-direct'));
    const anonymousPay = await api.pay(order.id, {});
    const raw = JSON.stringify({ eventId: newEventId(), type: 'payment.succeeded', orderId: order.id, amountCents: PRICE });
    const t = nowS();
    const webhook = await api.send({ method: 'POST', url: '/payments/webhook', headers: { 'content-type': 'application/json', 'payment-signature': `t=${t},v1=${sign(SECRET, t, raw)}` }, payload: raw });
    for (const res of [pay, anonymousPay, webhook]) {
      expectContractError(res, 404, unknown.body.code);
      expect(res.body.message).toMatch(/^Cannot POST /);
    }
    expect((await api.getOrder(order.id, auth('no-direct'))).body.status).toBe('PENDING_PAYMENT');
    // Cancelling is not a payment route: still there.
    expect((await api.cancel(order.id, auth('no-direct'))).status).toBe(200);
  });
});
