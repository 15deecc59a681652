import { checkHistory } from '../history/check-history';
import { HISTORY_FORMAT, MetaRecord, OpRecord } from '../history/format';
import { historyCheckHtml } from './history-check-html';
import { sellOutText } from './summary-table';
import { LoadTestResult } from './types';

const meta: MetaRecord = {
  op: 'meta',
  format: HISTORY_FORMAT,
  products: [{ productId: '1', initialStock: 1, perUserLimit: 1 }],
};
const bought: OpRecord = {
  op: 'purchase',
  productId: '1',
  userId: 'a',
  quantity: 1,
  key: 'k',
  purchaseId: 'k',
  status: 201,
  orderId: '9',
  invokeMs: 1000,
  completeMs: 1010,
};

describe('the report of a history check', () => {
  it('shows every rule with its verdict: PASS, FAIL with its example, NOT JUDGED', () => {
    const check = checkHistory(meta, [bought], [], { finalReadAtMs: 5000, require: ['outcome', 'reads-rise'] });
    const html = historyCheckHtml(check);
    expect(html).toContain('History check: FAIL');
    for (const r of check.rules) expect(html).toContain(r.id);
    expect(html).toMatch(/<td>FAIL<\/td><td>every 201 is in the final state.*absent from the final state/);
    expect(html).toMatch(/<td>NOT JUDGED \(required\)<\/td><td>stock reads go up only/);
    expect(html).toMatch(/<td>PASS<\/td><td>one outcome per purchase id/);
  });

  it('gives the time to sell out apart from the rate over the whole run', () => {
    const r = { sellOut: { afterS: 12.5, orders: 100000, perSecond: 8000 } } as LoadTestResult;
    expect(sellOutText(r)).toBe('after 12.50 s (100000 orders by then, 8000/s)');
    expect(sellOutText({} as LoadTestResult)).toBe('no SOLD_OUT answer in the run');
  });

  it('says that a sale over in seconds shows the warm-up, not the steady rate', () => {
    const r = { sellOut: { afterS: 1.05, orders: 1000, perSecond: 952.4 } } as LoadTestResult;
    expect(sellOutText(r)).toBe(
      "after 1.05 s (1000 orders by then, 952/s); a sale over in under 5 s shows the instances' warm-up, not their steady rate (npm run bench measures that)",
    );
  });
});
