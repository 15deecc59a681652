import { Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { registeredCounter } from './registered-metrics';
import { classifyError } from '../common/errors/all-exceptions.filter';

const NAME = 'background_failures_total';

const failures: Counter<'task' | 'reason'> = registeredCounter(
  NAME,
  'Failures of work no request waits for (jobs, after-commit bookkeeping, stray rejections), by task and contract code',
  ['task', 'reason'],
);

/**
 * The one way work that no request waits for reports a failure: a log line with its context and a
 * count by task and reason (the contract code the error would have been answered with), never a
 * rejection nobody handles. The next tick, or the next change, tries again.
 */
export function reportBackgroundFailure(logger: Logger, task: string, context: string, error: unknown): void {
  const reason = classifyError(error).body.code;
  failures.inc({ task, reason });
  const message = error instanceof Error ? error.message : String(error);
  if (reason === 'INTERNAL_ERROR')
    logger.error(`${task} failed (${context}): ${error instanceof Error ? (error.stack ?? message) : message}`);
  else logger.warn(`${task} failed (${context}): ${reason}: ${message}`);
}
