import type { HistoryCheck } from '../history/check-history';
import { verdictOfRule } from '../history/tally';
import { escapeHtml } from './svg-charts';

/** The history checker's verdict, rule by rule: what each judged, what broke it, and the first examples. */
export function historyCheckHtml(check: HistoryCheck | undefined): string {
  if (!check) return '';
  const f = check.figures;
  const rows = check.rules.map((r) => {
    const verdict = verdictOfRule(r);
    const css = !r.ok ? 'fail' : verdict === 'NOT JUDGED' ? 'warn' : 'pass';
    const examples = r.examples.length ? `<ul>${r.examples.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>` : '';
    const label = verdict === 'NOT JUDGED' && r.required ? 'NOT JUDGED (required)' : verdict;
    return `<tr class="${css}"><td>${label}</td><td>${escapeHtml(r.rule)} <span class="note">${escapeHtml(r.id)}</span>${examples}</td><td>${r.checked}</td><td>${r.violations}</td></tr>`;
  });
  const summary = `${f.ops} operations: ${f.purchases} purchases (${f.created} created, ${f.refused} refused), ${f.indeterminate} indeterminate; ${f.orders} orders judged in ${f.checkMs} ms`;
  return `<h2>History check: ${check.ok ? 'PASS' : 'FAIL'}</h2><p class="note">${escapeHtml(summary)}. Every request the run sent, judged against the final orders; a rule that judged nothing says so.</p>
<table class="invariants" id="history-check"><thead><tr><th>verdict</th><th>rule</th><th>judged</th><th>broken</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
