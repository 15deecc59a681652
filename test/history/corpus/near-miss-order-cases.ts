import { CorpusCase } from './case';

/**
 * Family "near misses, orders": for each order rule, a history that sits just inside what it
 * allows beside one just outside (an edge of the clock allowance or a due time, a second clause
 * that alone decides), so that a rule which judged a clause loosely or not at all would be seen.
 */
export const nearMissOrderCases: CorpusCase[] = [];
