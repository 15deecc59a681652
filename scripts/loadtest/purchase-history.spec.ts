import type { Response } from './driver';
import { purchaseRecord } from './driver';
import { PurchaseHistory } from './purchase-history';

const answered = (sample: Response['sample'], extra: Partial<Response> = {}): Response => ({
  sample,
  invokeMs: 1_700_000_000_000,
  completeMs: 1_700_000_000_012,
  ...extra,
});

describe('PurchaseHistory', () => {
  it('gives back exactly the records HistoryLog would have held, in the order they were added', () => {
    const history = new PurchaseHistory('42', 2, 'w1.');
    const poll = {
      op: 'poll',
      invokeMs: 1,
      completeMs: 2,
      productId: '42',
      userId: 'u2',
      purchaseId: 'k2',
      status: 200,
    };
    const answers: [Response, number, string, string][] = [
      [answered({ status: 201, latencyMs: 3, finishedAt: 0 }, { orderId: '7', purchaseId: 'k1' }), 3, 'u1', 'k1'],
      [
        answered({ status: 202, code: 'PURCHASE_PENDING', latencyMs: 3, finishedAt: 0 }, { purchaseId: 'p-9' }),
        0,
        'u2',
        'k2',
      ],
      [answered({ status: 0, error: 'TIMEOUT', latencyMs: 3, finishedAt: 0 }), 5, 'u3', 'k3'],
      [answered({ status: 409, code: 'SOLD_OUT', latencyMs: 3, finishedAt: 0 }, { purchaseId: 'k4' }), 1, 'u4', 'k4'],
      [answered({ status: 201, code: 'NO_ORDER_ID', latencyMs: 3, finishedAt: 0 }), 2, 'u5', 'k5'],
    ];
    const expected = [];
    for (const [i, [response, connection, userId, key]] of answers.entries()) {
      history.addPurchase(response, connection, userId, key);
      const process = `w1.${connection}`;
      expected.push(purchaseRecord(response, { process, productId: '42', userId, quantity: 2, key }));
      if (i === 1) {
        history.add(poll as never);
        expected.push(poll);
      }
    }
    const ops = history.ops();
    expect(ops).toEqual(expected);
    // The file is JSON lines: the same text, fields in the same order.
    expect(ops.map((op) => JSON.stringify(op))).toEqual(expected.map((op) => JSON.stringify(op)));
  });
});
