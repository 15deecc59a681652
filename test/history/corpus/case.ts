import { FinalOrder, MetaRecord, OpRecord } from '../../../scripts/history/format';

/** One history of the corpus: what it breaks (rule ids, none for a near miss that must pass). */
export interface CorpusCase {
  name: string;
  expect: string[];
  meta: MetaRecord;
  ops: OpRecord[];
  orders: FinalOrder[];
  /** The final state as GET /orders shows it (no close times): not loaded into a database. */
  apiOnly?: boolean;
  /** Rule ids that must judge something (the checker's default set when absent). */
  require?: string[];
}

export const breaks = (name: string, expect: string[], c: Omit<CorpusCase, 'name' | 'expect'>): CorpusCase => ({ name, expect, ...c });
export const passes = (name: string, c: Omit<CorpusCase, 'name' | 'expect'>): CorpusCase => ({ name, expect: [], ...c });
