import { Injectable } from '@nestjs/common';
import { Counter, register } from 'prom-client';
import { PurchaseResult } from './purchase.service';
import { classifyError } from '../common/errors/all-exceptions.filter';

const NAME = 'purchases_total';

/** Counts purchases by outcome: created, replayed, or the contract code of the refusal. */
@Injectable()
export class PurchaseMetrics {
  private readonly outcomes: Counter<'outcome'> =
    (register.getSingleMetric(NAME) as Counter<'outcome'> | undefined) ??
    new Counter({ name: NAME, help: 'Purchase attempts by outcome', labelNames: ['outcome'] });

  /** Counts a refusal answered outside the Nest pipeline (the sold-out shortcut). */
  countRefusal(code: string): void {
    this.outcomes.inc({ outcome: code });
  }

  async track(run: () => Promise<PurchaseResult>): Promise<PurchaseResult> {
    try {
      const result = await run();
      this.outcomes.inc({ outcome: result.kind === 'pending' ? 'pending' : result.replayed ? 'replayed' : 'created' });
      return result;
    } catch (error) {
      this.outcomes.inc({ outcome: classifyError(error).body.code });
      throw error;
    }
  }
}
