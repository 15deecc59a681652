import { mostForSale } from '../for-sale';
import { Model } from '../model';
import { OrderSpan } from '../order-spans';
import { RuleResult, RuleTally } from '../tally';
import { stockReads } from './stock-read-rule';

/**
 * No read shows more than the product can have had for sale when it was served, for the whole
 * history: before, between and after stock sets (see mostForSale). A read served from a cache may
 * be `staleReadMs` old. This is what makes each unit's return count once: a read after many rises
 * still has to fit the orders that exist, however the reads in between went.
 */
export function stockReadsWithinSupply(m: Model, spans: OrderSpan[], preexisting: OrderSpan[] = []): RuleResult {
  const tally = new RuleTally('no stock read shows more than was left for sale');
  const ended = [...spans, ...preexisting];
  for (const product of m.products.values()) {
    const id = product.productId;
    const reads = stockReads(m, id);
    const bounds = mostForSale(
      m,
      id,
      ended,
      reads.map((r) => ({ fromMs: r.invokeMs - m.options.staleReadMs, toMs: r.completeMs })),
    );
    reads.forEach((r, i) =>
      tally.judge(
        r.stock > bounds[i].bound
          ? `product ${id}: read ${r.stock} at [${r.invokeMs}..${r.completeMs}], at most ${bounds[i].bound} (${bounds[i].why})`
          : undefined,
      ),
    );
  }
  return tally.result();
}
