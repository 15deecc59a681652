export { runLoadTest, validateOptions } from './run-load-test';
export { formatSummary } from './summary-table';
export { terminalProgress, formatProgress } from './progress';
export { mintToken } from './jwt';
export type {
  LoadTestOptions,
  LoadTestResult,
  ProgressSnapshot,
  InvariantResult,
  LatencySummary,
  HistogramBucket,
  SecondBucket,
} from './types';
export { checkHistory, formatCheck } from '../history/check-history';
export type { HistoryCheck } from '../history/check-history';
