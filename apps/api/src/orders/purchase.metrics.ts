import { Injectable } from '@nestjs/common';
import { Counter, register } from 'prom-client';
import type { PurchaseResult } from './purchase.service';

const NAME = 'purchases_total';

/** Counts purchases by outcome: created, replayed, pending, or the contract code of the refusal. */
@Injectable()
export class PurchaseMetrics {
  private readonly outcomes: Counter<'outcome'> =
    (register.getSingleMetric(NAME) as Counter<'outcome'> | undefined) ??
    new Counter({ name: NAME, help: 'Purchase attempts by outcome', labelNames: ['outcome'] });

  /** One answered purchase: its result, or (refused) the contract body it was answered with. */
  count(result: PurchaseResult | undefined, refusal: { code?: unknown }): void {
    const outcome = result ? (result.kind === 'pending' ? 'pending' : result.replayed ? 'replayed' : 'created') : String(refusal.code);
    this.outcomes.inc({ outcome });
  }
}
