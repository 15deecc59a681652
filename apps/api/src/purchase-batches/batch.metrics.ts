import { registeredCounter, registeredGauge, registeredHistogram } from '../metrics/registered-metrics';
import type { RefusalReason } from './overloaded.error';

/**
 * The purchases waiting in this instance's batchers, all units together, and how Prometheus sees
 * them (README, "Deadline and admission"; monitoring/ alerts on these names, kept as published).
 */
export class BatchMetrics {
  /** Purchases waiting for a batch in this instance (PURCHASE_QUEUE_MAX bounds it). */
  waiting = 0;

  private readonly depth = registeredGauge(
    'purchase_admission_queue_depth',
    'Purchases queued for a product lock in this instance, all products together',
  );
  private readonly wait = registeredHistogram(
    'purchase_queue_wait_seconds',
    'From arrival until the purchase joined a batch under way',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5],
  );
  private readonly refusals = registeredCounter(
    'purchase_refused_total',
    'Purchases answered 503 OVERLOADED, by reason',
    ['reason'],
  );
  private readonly deadlineMisses = registeredCounter(
    'purchase_deadline_misses_total',
    'Purchases answered later than PURCHASE_DEADLINE_MS after their arrival',
  );

  joined(): void {
    this.depth.set(++this.waiting);
  }

  /** Purchases stopped waiting: taken into a batch, expired or refused. */
  left(count: number): void {
    this.waiting -= count;
    this.depth.set(this.waiting);
  }

  waited(seconds: number): void {
    this.wait.observe(seconds);
  }

  refused(reason: RefusalReason, count = 1): void {
    this.refusals.inc({ reason }, count);
  }

  missedDeadline(): void {
    this.deadlineMisses.inc();
  }
}
