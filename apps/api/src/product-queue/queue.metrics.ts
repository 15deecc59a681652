import { Counter, Gauge, Histogram, register } from 'prom-client';
import type { RefusalReason } from './product-queue';

// prom-client refuses a second metric of one name (several apps in one test process): reuse it.
const existing = <M>(name: string): M | undefined => register.getSingleMetric(name) as M | undefined;

/** The purchase queues as Prometheus sees them (README, "Deadline and admission"; monitoring/ alerts on them). */
export class QueueMetrics {
  readonly depth: Gauge =
    existing<Gauge>('purchase_admission_queue_depth') ??
    new Gauge({
      name: 'purchase_admission_queue_depth',
      help: 'Purchases queued for a product lock in this instance, all products together',
    });

  readonly wait: Histogram =
    existing<Histogram>('purchase_queue_wait_seconds') ??
    new Histogram({
      name: 'purchase_queue_wait_seconds',
      help: 'From arrival until the purchase joined a batch under way',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5],
    });

  readonly refused: Counter<'reason'> =
    existing<Counter<'reason'>>('purchase_refused_total') ??
    new Counter({
      name: 'purchase_refused_total',
      help: 'Purchases answered 503 OVERLOADED, by reason',
      labelNames: ['reason'],
    });

  readonly deadlineMisses: Counter =
    existing<Counter>('purchase_deadline_misses_total') ??
    new Counter({
      name: 'purchase_deadline_misses_total',
      help: 'Purchases answered later than PURCHASE_DEADLINE_MS after their arrival',
    });

  countRefusals(reason: RefusalReason, count = 1): void {
    this.refused.inc({ reason }, count);
  }
}
