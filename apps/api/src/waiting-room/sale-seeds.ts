import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { seedCommitment } from './fair-order';

/** A sale's seed and its public commitment (hex SHA-256 of its bytes). */
export interface SaleSeed {
  seed: Buffer;
  commitment: string;
}

// Seeds of this many sales stay in memory; past it the map starts again (a seed never changes, so
// a forgotten one is only read again).
const MAX_KNOWN = 10_000;

/**
 * The seeds of the sales' pre-queue shuffles, as stored with each product with a waiting room
 * (drawn at creation: sale-terms/sale-seed.ts). A seed never changes, so an instance reads each
 * sale's from Postgres once (callers asking meanwhile share the read) and keeps it; only callers
 * that already know the product has a waiting room ask, so unknown ids never reach the query.
 */
@Injectable()
export class SaleSeeds {
  private readonly known = new Map<string, Promise<SaleSeed>>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  of(productId: string): Promise<SaleSeed> {
    const known = this.known.get(productId);
    if (known) return known;
    if (this.known.size >= MAX_KNOWN) this.known.clear();
    const read = this.read(productId);
    this.known.set(productId, read);
    // A failed read (Postgres unreachable) is not kept: the next caller asks again.
    read.catch(() => this.known.get(productId) === read && this.known.delete(productId));
    return read;
  }

  private async read(productId: string): Promise<SaleSeed> {
    const rows: Array<{ seed: Buffer | null }> = await this.db.query(
      'SELECT waiting_room_seed AS seed FROM products WHERE id = $1',
      [productId],
    );
    const seed = rows[0]?.seed;
    if (!seed) throw new Error(`product ${productId} has no waiting-room seed`);
    return { seed, commitment: seedCommitment(seed) };
  }
}
