import { SetStockRecord, verdictOf } from './format';
import { Model } from './model';
import { StepLevels } from './step-levels';

/** An admin stock set as the database's clock may have seen it: applied somewhere in [from, to]. */
export interface StockSet {
  from: number;
  to: number;
  stock: number;
  op: SetStockRecord;
  /** The most units there can have been (for sale plus held) once it applied. */
  value: number;
}

/**
 * The most units a product can have had, for sale and held together, at each instant: its
 * initial stock until an admin set could have landed, then what the last set that could have
 * applied made it. A set to S makes it S plus the units held when it applied, which is no more
 * than the units that may have been held in its window, nor more than there could have been just
 * before it. A set that never answered may apply at any later time; a set surely applied ends the
 * reign of the initial stock and of every set that surely came before it.
 */
export class SupplyBound {
  readonly sets: StockSet[];
  /** Until this instant no set can have applied: the supply is exactly the initial stock (plus returns of pre-existing orders). */
  readonly firstSetFrom: number;
  private initialBound: { bound: number; why: string } | undefined;

  constructor(
    m: Model,
    productId: string,
    private readonly initial: number,
    /** The units that may have been held at each instant: asked for only when the product has stock sets. */
    possiblyHeldLevels: () => StepLevels,
  ) {
    const skew = m.options.skewMs;
    const ops = m.byKind.setStock.filter((op) => op.productId === productId && verdictOf(op) !== 'refused');
    this.sets = ops
      .map((op) => ({
        op,
        stock: op.stock,
        from: op.invokeMs - skew,
        to: verdictOf(op) === 'ok' ? op.completeMs + skew : Infinity,
        value: 0,
      }))
      .sort((a, b) => a.from - b.from);
    let possiblyHeld: StepLevels | undefined;
    const heldIn = (s: StockSet) => (possiblyHeld ??= possiblyHeldLevels()).maxOver(s.from, s.to);
    const loose = this.sets.map((s) => s.stock + heldIn(s));
    this.sets.forEach((s, i) => {
      let before = initial;
      for (let j = 0; j < this.sets.length; j++)
        if (j !== i && this.sets[j].from < s.to) before = Math.max(before, j < i ? this.sets[j].value : loose[j]);
      s.value = s.stock + Math.min(heldIn(s), before);
    });
    this.firstSetFrom = this.sets.length ? this.sets[0].from : Infinity;
  }

  /** Instants after which the bound may change. */
  breakpoints(): number[] {
    return this.sets.flatMap((s) => [s.from, s.to]).filter(Number.isFinite);
  }

  /** The bound at instant t, and why. */
  at(t: number): { bound: number; why: string } {
    if (t < this.firstSetFrom)
      return (this.initialBound ??= { bound: this.initial, why: `initial stock ${this.initial}` });
    const applied = this.sets.filter((s) => s.to <= t);
    let bound = applied.length ? -Infinity : this.initial;
    let why = applied.length ? '' : `initial stock ${this.initial}`;
    for (const s of this.sets) {
      if (s.from > t) continue;
      if (applied.some((later) => later.from > s.to)) continue;
      if (s.value > bound) {
        bound = s.value;
        why = `stock set to ${s.stock} [${s.op.invokeMs}..${s.op.completeMs}] plus at most ${s.value - s.stock} unit(s) held then`;
      }
    }
    return { bound, why };
  }
}
