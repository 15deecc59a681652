import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** How long a look at the highest id answers for ids above it, before Postgres is asked again. */
export const ID_RANGE_RECHECK_MS = 1000;

/**
 * The ids Postgres has handed out, as far as this instance knows: product ids come from one
 * sequence, so an id above the highest one stored names no product. A lookup the cache cannot
 * answer asks here first, and an id above the range is answered "no such product" without a
 * query and without a cache entry: random ids, however many, cost at most one `max(id)` (an
 * index-only scan) per instance per ID_RANGE_RECHECK_MS, and never a Redis key. Ids inside the
 * range that name nothing are the gaps of failed inserts, which only an admin makes; those still
 * go through the cache's negative entries.
 *
 * The highest id is looked up again when an id above it is asked for and the last look is older
 * than ID_RANGE_RECHECK_MS, so a product created on another instance is found from then on (it is
 * found at once through the view its creator cached; this matters only when that view is gone).
 */
@Injectable()
export class ProductIdRange {
  private highest = 0n;
  private lookedAt = Number.NEGATIVE_INFINITY;
  private lookup?: Promise<void>;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Whether `id` (a positive decimal id) may name a product; false only when it is above every id handed out. */
  async mayExist(id: string): Promise<boolean> {
    const wanted = BigInt(id);
    if (wanted <= this.highest) return true;
    if (performance.now() - this.lookedAt >= ID_RANGE_RECHECK_MS) await this.lookAgain();
    return wanted <= this.highest;
  }

  /** A product this instance just created: its id is in the range from now on. */
  noteCreated(id: string): void {
    const created = BigInt(id);
    if (created > this.highest) this.highest = created;
  }

  /** One look at a time: the callers that arrive while it runs share it. */
  private lookAgain(): Promise<void> {
    this.lookup ??= this.readHighest().finally(() => (this.lookup = undefined));
    return this.lookup;
  }

  private async readHighest(): Promise<void> {
    const rows: Array<{ highest: string | null }> = await this.db.query(
      'SELECT max(id)::text AS highest FROM products',
    );
    this.lookedAt = performance.now();
    if (rows[0]?.highest) this.noteCreated(rows[0].highest);
  }
}
