import { CORPUS } from './corpus';
import { failedIds, judge } from './support/judge';

describe('the history corpus', () => {
  it.each(CORPUS.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const check = judge(c);
    expect(failedIds(check)).toEqual([...c.expect].sort());
    // A failing rule says why.
    for (const r of check.rules.filter((x) => x.violations > 0)) expect(r.examples.length).toBeGreaterThan(0);
  });

  it('has, for every rule, a history that breaks it', () => {
    const broken = new Set(CORPUS.flatMap((c) => c.expect));
    const ids = judge(CORPUS[0]).rules.map((r) => r.id);
    expect(ids.filter((id) => !broken.has(id))).toEqual([]);
    expect(['queue-admitted', 'queue-order', 'queue-stock'].filter((id) => !broken.has(id))).toEqual([]);
  });
});
