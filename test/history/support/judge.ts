import { checkHistory } from '../../../scripts/history/check-history';
import { parseHistory } from '../../../scripts/history/format';
import { HistoryLog } from '../../../scripts/history/writer';
import { CorpusCase } from '../corpus';
import { FINAL_READ } from './records';

/** A case through the documented format: written as JSON lines, read back, judged. */
export function judge(c: CorpusCase, orders = c.orders) {
  const log = new HistoryLog('corpus', c.meta.products);
  for (const op of c.ops) log.add(op);
  const { meta, ops } = parseHistory(log.toJsonl());
  return checkHistory(meta, ops, orders, { finalReadAtMs: FINAL_READ, require: c.require });
}

export const failedIds = (check: ReturnType<typeof judge>): string[] => check.rules.filter((r) => !r.ok).map((r) => r.id).sort();
