import { formatCheck } from '../../scripts/history/check-history';
import { CORPUS } from './corpus';
import { judge } from './support/judge';

/**
 * What the report tells a reader about each broken history of the corpus: the failing rules'
 * counterexamples and the stretches not judged, as formatCheck prints them. The verdicts are
 * pinned by corpus.spec.ts; this pins the words (a counterexample that names the wrong order or
 * instant misleads whoever reads it), minus the line with the time the check took.
 */
describe('the history corpus, as the report prints it', () => {
  it.each(CORPUS.filter((c) => c.expect.length).map((c) => [c.name, c] as const))('%s', (_, c) => {
    const text = formatCheck(judge(c)).replace(/checked in \d+ ms/, 'checked in … ms');
    expect(text.split('\n').filter((line) => /FAIL|^\s+- /.test(line))).toMatchSnapshot();
  });
});
