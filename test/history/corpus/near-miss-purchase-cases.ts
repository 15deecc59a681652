import { CorpusCase } from './case';

/**
 * Family "near misses, purchases, reads and queues": for each of those rules, a history that sits
 * just inside what it allows beside one just outside, so that a rule which judged a clause loosely
 * or not at all would be seen.
 */
export const nearMissPurchaseCases: CorpusCase[] = [];
