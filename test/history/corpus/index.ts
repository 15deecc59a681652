import { admissionLifeCases } from './admission-life-cases';
import { afterSetCases } from './after-set-cases';
import { answerCases } from './answer-cases';
import { CorpusCase } from './case';
import { nearMissOrderCases } from './near-miss-order-cases';
import { nearMissPurchaseCases } from './near-miss-purchase-cases';
import { orderCases } from './order-cases';
import { purchaseCases } from './purchase-cases';
import { orderLifeCases } from './order-life-cases';
import { queueCases } from './queue-cases';
import { readCases } from './read-cases';
import { realTimeCases } from './real-time-cases';
import { unitCases } from './unit-cases';

export type { CorpusCase } from './case';
export const CORPUS: CorpusCase[] = [...unitCases, ...purchaseCases, ...orderCases, ...readCases, ...queueCases, ...afterSetCases, ...realTimeCases, ...admissionLifeCases, ...orderLifeCases, ...answerCases, ...nearMissOrderCases, ...nearMissPurchaseCases];
