import { FinalOrder, MetaRecord, OpRecord, verdictOf } from './format';
import { buildModel, CheckOptions } from './model';
import { legalOrderStates } from './rules/order-state-rules';
import { every201Durable, oneOrderPerPurchase, refusalsDidNothing } from './rules/purchase-rules';
import { stockReadsMonotone } from './rules/stock-read-rule';
import { noOversell, perUserLimit } from './rules/unit-rules';
import { RuleResult, RuleTally } from './tally';

export interface HistoryCheck {
  ok: boolean;
  rules: RuleResult[];
  figures: { ops: number; purchases: number; created: number; refused: number; indeterminate: number; orders: number; products: number; checkMs: number };
}

/** Any 5xx but 503 is a contract breach (503 is the only "try again" answer). */
function noServerErrors(ops: OpRecord[]): RuleResult {
  const tally = new RuleTally('no 5xx other than 503');
  for (const op of ops) tally.judge(op.status !== undefined && op.status >= 500 && op.status !== 503 ? `${op.op} [${op.invokeMs}..${op.completeMs}] answered ${op.status} ${op.code ?? ''}`.trim() : undefined);
  return tally.result();
}

/**
 * Judges a history against the final state of its products' orders (read once, after the
 * history ended). Only what the clients saw and that final state are used: never the app's own
 * counters or its bookkeeping of what was supplied.
 */
export function checkHistory(meta: MetaRecord, ops: OpRecord[], finalOrders: FinalOrder[], options: Partial<CheckOptions> = {}): HistoryCheck {
  const t0 = performance.now();
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const model = buildModel(meta, ops, finalOrders, { skewMs: 250, staleReadMs: 0, finalReadAtMs: Date.now(), ...given });
  const { refusals, explained } = refusalsDidNothing(model);
  const rules = [
    every201Durable(model),
    refusals,
    explained,
    oneOrderPerPurchase(model),
    noOversell(model),
    perUserLimit(model),
    legalOrderStates(model),
    stockReadsMonotone(model),
    noServerErrors(ops),
  ];
  const purchases = ops.filter((op) => op.op === 'purchase');
  return {
    ok: rules.every((r) => r.ok),
    rules,
    figures: {
      ops: ops.length,
      purchases: purchases.length,
      created: purchases.filter((p) => verdictOf(p) === 'ok').length,
      refused: purchases.filter((p) => verdictOf(p) === 'refused').length,
      indeterminate: ops.filter((op) => verdictOf(op) === 'unknown').length,
      orders: model.orders.length,
      products: model.products.size,
      checkMs: Math.round(performance.now() - t0),
    },
  };
}

export function formatCheck(check: HistoryCheck): string {
  const f = check.figures;
  const lines = [
    `history check: ${check.ok ? 'PASS' : 'FAIL'}`,
    `  ${f.ops} operation(s): ${f.purchases} purchase(s) (${f.created} created, ${f.refused} refused), ${f.indeterminate} indeterminate; ${f.orders} order(s) of ${f.products} product(s); checked in ${f.checkMs} ms`,
  ];
  for (const r of check.rules) {
    lines.push(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.rule}: ${r.checked} checked, ${r.violations} violation(s)`);
    for (const example of r.examples) lines.push(`         - ${example}`);
  }
  return lines.join('\n');
}
