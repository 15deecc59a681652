import { FinalOrder, MetaRecord, OpRecord, verdictOf } from './format';
import { buildModel, CheckOptions } from './model';
import { orderSpans } from './order-spans';
import { orderActors, orderAnswers } from './rules/order-answer-rules';
import { legalOrderStates } from './rules/order-state-rules';
import { purchaseAnswers } from './rules/purchase-answer-rules';
import { answersAfterEffects } from './rules/real-time-rule';
import { every201Durable, onePurchaseOutcome, refusalsDidNothing } from './rules/purchase-rules';
import { admissionsInOrder, admissionsWithinStock, purchasesAdmitted, queueAnswers } from './rules/queue-rules';
import { stockReadsWithinSupply } from './rules/stock-level-rule';
import { stockReadsFallByOrders, stockReadsMonotone } from './rules/stock-read-rule';
import { noOversell, perUserLimit } from './rules/unit-rules';
import { RULE_IDS, RuleResult, RuleTally, verdictOfRule } from './tally';

export interface HistoryCheck {
  ok: boolean;
  rules: RuleResult[];
  figures: {
    ops: number;
    purchases: number;
    created: number;
    refused: number;
    indeterminate: number;
    orders: number;
    products: number;
    checkMs: number;
    skewMs: number;
    staleReadMs: number;
  };
}

export interface CheckHistoryOptions extends CheckOptions {
  /** Rule ids (or `all`) that must judge at least one case; a rule required and not judged fails. Default: see DEFAULT_REQUIRED. */
  require: string[];
}

/**
 * What every history must give its rules to judge: purchases (one outcome per purchase id), a
 * product (units), and operations (5xx). A history with queue records must also give the queue
 * rules something.
 */
export const DEFAULT_REQUIRED = ['outcome', 'units', 'no-5xx'];
const QUEUE_REQUIRED = ['queue-admitted', 'queue-order', 'queue-stock'];
export const ALL_RULE_IDS = Object.values(RULE_IDS);

/** Any 5xx but 503 is a contract breach (503 is the only "try again" answer). */
function noServerErrors(ops: OpRecord[]): RuleResult {
  const tally = new RuleTally('no 5xx other than 503');
  for (const op of ops)
    tally.judge(
      op.status !== undefined && op.status >= 500 && op.status !== 503
        ? `${op.op} [${op.invokeMs}..${op.completeMs}] answered ${op.status} ${op.code ?? ''}`.trim()
        : undefined,
    );
  return tally.result();
}

/**
 * Judges a history against the final state of its products' orders (read once, after the
 * history ended). Only what the clients saw, what the writer set up (meta) and that final state
 * are used: never the app's own counters or its bookkeeping of what was supplied.
 */
export function checkHistory(
  meta: MetaRecord,
  ops: OpRecord[],
  finalOrders: FinalOrder[],
  options: Partial<CheckHistoryOptions> = {},
): HistoryCheck {
  const t0 = performance.now();
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const model = buildModel(meta, ops, finalOrders, {
    skewMs: 250,
    staleReadMs: 0,
    finalReadAtMs: Date.now(),
    ...given,
  });
  const spans = orderSpans(model);
  // Orders from before the history are not judged, but when they end their units come back.
  const preexisting = orderSpans(model, model.preexisting);
  const queues = queueAnswers(model);
  const { refusals, explained } = refusalsDidNothing(model);
  const rules = [
    every201Durable(model),
    refusals,
    explained,
    onePurchaseOutcome(model),
    noOversell(model, spans),
    perUserLimit(model, spans),
    legalOrderStates(model),
    orderActors(model),
    orderAnswers(model),
    purchaseAnswers(model),
    answersAfterEffects(model),
    stockReadsMonotone(model, spans, preexisting),
    stockReadsFallByOrders(model),
    stockReadsWithinSupply(model, spans, preexisting),
    noServerErrors(ops),
    ...(queues.size
      ? [
          purchasesAdmitted(model, queues),
          admissionsInOrder(model, queues),
          admissionsWithinStock(model, queues, spans, preexisting),
        ]
      : []),
  ];
  const actsOnOrders = model.byKind.pay.length + model.byKind.cancel.length > 0;
  const required = requiredIds(options.require, queues.size > 0, actsOnOrders);
  for (const r of rules) {
    r.required = required.has(r.id);
    // A required rule must judge something, and everything: a stretch it could not judge fails it.
    r.ok = r.violations === 0 && !(r.required && (r.checked === 0 || r.unjudged.length > 0));
  }
  const purchases = model.byKind.purchase;
  let [created, refused, indeterminate] = [0, 0, 0];
  for (const op of ops) {
    const verdict = verdictOf(op);
    if (verdict === 'unknown') indeterminate++;
    else if (op.op === 'purchase' && verdict === 'ok') created++;
    else if (op.op === 'purchase') refused++;
  }
  return {
    ok: rules.every((r) => r.ok),
    rules,
    figures: {
      ops: ops.length,
      purchases: purchases.length,
      created,
      refused,
      indeterminate,
      orders: model.orders.length,
      products: model.products.size,
      checkMs: Math.round(performance.now() - t0),
      skewMs: model.options.skewMs,
      staleReadMs: model.options.staleReadMs,
    },
  };
}

/** Rules that judge pays and cancels: a history with neither gives them nothing to judge. */
const ORDER_ACTION_RULES = ['order-actors', 'order-answers'];

function requiredIds(require: string[] | undefined, queued: boolean, actsOnOrders: boolean): Set<string> {
  const ids = require ?? [...DEFAULT_REQUIRED, ...(queued ? QUEUE_REQUIRED : [])];
  const unknown = ids.filter((id) => id !== 'all' && !ALL_RULE_IDS.includes(id));
  if (unknown.length)
    throw new Error(`unknown rule(s) to require: ${unknown.join(', ')}; known: all, ${ALL_RULE_IDS.join(', ')}`);
  // `all` means every rule this history gives something to judge: the queue rules only with queue
  // records, the pay and cancel rules only with pays or cancels.
  if (!ids.includes('all')) return new Set(ids);
  return new Set(ALL_RULE_IDS.filter((id) => actsOnOrders || !ORDER_ACTION_RULES.includes(id)));
}

const iso = (t: number): string => (Number.isFinite(t) ? new Date(t).toISOString() : String(t));

export function formatCheck(check: HistoryCheck): string {
  const f = check.figures;
  const lines = [
    `history check: ${check.ok ? 'PASS' : 'FAIL'}`,
    `  ${f.ops} operation(s): ${f.purchases} purchase(s) (${f.created} created, ${f.refused} refused), ${f.indeterminate} indeterminate; ${f.orders} order(s) of ${f.products} product(s); checked in ${f.checkMs} ms`,
    `  clock allowance between the writer and the database: ±${f.skewMs} ms; reads may be ${f.staleReadMs} ms stale`,
  ];
  for (const r of check.rules) {
    const verdict = verdictOfRule(r);
    const mark = !r.ok ? 'FAIL' : verdict === 'NOT JUDGED' ? '--  ' : 'ok  ';
    const tail =
      verdict === 'NOT JUDGED'
        ? `not judged${r.required ? ' (required)' : ''}`
        : `${r.checked} checked, ${r.violations} violation(s)`;
    lines.push(`  ${mark} ${r.rule} [${r.id}]: ${tail}`);
    for (const example of r.examples) lines.push(`         - ${example}`);
    for (const u of r.unjudged)
      lines.push(
        `         - not judged from ${iso(u.fromMs)} to ${u.toMs === Infinity ? 'the end' : iso(u.toMs)}: ${u.why}${r.required ? ' (required)' : ''}`,
      );
  }
  return lines.join('\n');
}
