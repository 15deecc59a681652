import { CorpusCase } from './case';
import { orderCases } from './order-cases';
import { purchaseCases } from './purchase-cases';
import { queueCases } from './queue-cases';
import { readCases } from './read-cases';
import { unitCases } from './unit-cases';

export type { CorpusCase } from './case';
export const CORPUS: CorpusCase[] = [...unitCases, ...purchaseCases, ...orderCases, ...readCases, ...queueCases];
