/**
 * One rule's verdict: how many cases it judged, how many broke it, and the first few that did. A
 * rule that judged nothing is "not judged": a pass only when nobody required it.
 */
export interface RuleResult {
  /** A short name for `--require` (`units`, `outcome`, ...). */
  id: string;
  rule: string;
  ok: boolean;
  checked: number;
  violations: number;
  examples: string[];
  /** Whether the rule had to judge something (`--require`, or the history kind's default set). */
  required?: boolean;
  /** Stretches of time the rule could not judge, and why: a required rule with any fails. */
  unjudged: Unjudged[];
}

/** A stretch of the history (client clock, ms since the epoch; `toMs` Infinity: to the end) a rule could not judge. */
export interface Unjudged {
  fromMs: number;
  toMs: number;
  why: string;
}

export type RuleVerdict = 'PASS' | 'FAIL' | 'NOT JUDGED';

export const verdictOfRule = (r: RuleResult): RuleVerdict =>
  r.violations > 0 ? 'FAIL' : r.checked === 0 ? 'NOT JUDGED' : 'PASS';

const EXAMPLES = 5;

export class RuleTally {
  checked = 0;
  violations = 0;
  private readonly examples: string[] = [];
  private readonly unjudged: Unjudged[] = [];

  constructor(
    private readonly rule: string,
    private readonly id: string = RULE_IDS[rule] ?? rule,
  ) {}

  /** Counts one judged case; `problem` (when given) is a violation. */
  judge(problem?: string): void {
    this.checked++;
    if (problem !== undefined) this.fail(problem);
  }

  fail(problem: string): void {
    this.violations++;
    if (this.examples.length < EXAMPLES) this.examples.push(problem);
  }

  /** Records a stretch the rule cannot judge (the same reason twice is kept once). */
  notJudged(fromMs: number, toMs: number, why: string): void {
    if (this.unjudged.some((u) => u.why === why)) return;
    this.unjudged.push({ fromMs, toMs, why });
  }

  result(): RuleResult {
    return {
      id: this.id,
      rule: this.rule,
      ok: this.violations === 0,
      checked: this.checked,
      violations: this.violations,
      examples: [...this.examples],
      unjudged: [...this.unjudged],
    };
  }
}

/** Every rule's short id, by its name. */
export const RULE_IDS: Record<string, string> = {
  'every 201 is in the final state': 'durable',
  'no refused purchase has an order (now or later)': 'refusals',
  'every order was made by a request that was not refused': 'explained',
  'one outcome per purchase id': 'outcome',
  'units sold <= initial stock + admin stock changes': 'units',
  'per-user limit over live orders': 'per-user',
  'order states only along legal edges': 'order-states',
  'stock reads go up only by a cancel, expiry or restock between them': 'reads-rise',
  'stock reads go down only by orders made between them': 'reads-fall',
  'no stock read shows more than was left for sale': 'reads-level',
  'no 5xx other than 503': 'no-5xx',
  'no answer precedes the effect it reports': 'real-time',
  "only the order's user or an admin pays or cancels it": 'order-actors',
  'every pay and cancel answer is true': 'order-answers',
  'every answer about a purchase id fits its story': 'purchase-answers',
  'no purchase on a queued product without an admission': 'queue-admitted',
  'admissions follow ticket order': 'queue-order',
  'outstanding admissions never exceed the stock for sale': 'queue-stock',
};
