/** One rule's verdict: how many cases it judged, how many broke it, and the first few that did. */
export interface RuleResult {
  rule: string;
  ok: boolean;
  checked: number;
  violations: number;
  examples: string[];
}

const EXAMPLES = 5;

export class RuleTally {
  checked = 0;
  violations = 0;
  private readonly examples: string[] = [];

  constructor(private readonly rule: string) {}

  /** Counts one judged case; `problem` (when given) is a violation. */
  judge(problem?: string): void {
    this.checked++;
    if (problem !== undefined) this.fail(problem);
  }

  fail(problem: string): void {
    this.violations++;
    if (this.examples.length < EXAMPLES) this.examples.push(problem);
  }

  result(): RuleResult {
    return { rule: this.rule, ok: this.violations === 0, checked: this.checked, violations: this.violations, examples: [...this.examples] };
  }
}
