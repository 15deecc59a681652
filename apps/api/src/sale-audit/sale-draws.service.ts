import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { TypedConfigService } from '../config/app-config.module';
import type { SaleBeaconConfig } from '../config/sale-beacon-config';
import { isRoundSignature, roundTimeMs, shuffleSeedOf } from '../sale-terms/beacon-round';
import type { SaleCommitment } from '../sale-terms/sale-commitment';
import { fetchRoundSignature } from './beacon-source';
import { DrawnSale, DrawRow, SaleDraw, toSaleDraw } from './sale-draw';

/** A beacon that has not answered is asked again this much later, at most. */
const FETCH_EVERY_MS = 500;
/** An undecided draw is read again from Postgres at most this often per instance (the public summary asks). */
const UNDECIDED_FOR_MS = 1000;
const MAX_KNOWN = 10_000;
const SALE = `SELECT id, waiting_room_seed AS seed, sale_starts_at, sale_commitment FROM products WHERE id = $1 AND waiting_room IS NOT NULL`;
const DRAW = 'SELECT beacon, beacon_round, beacon_signature, shuffle_seed FROM sale_draws WHERE product_id = $1';

/**
 * The draws of the sales' start shuffles. The leader asks `settle` each step once a sale started:
 * it decides the draw when it can (the committed round's signature, fetched from SALE_BEACON_URL
 * or posted by an admin, verified; or, past the deadline, the fallback) and never waits on the
 * beacon itself. The first decision stored wins (INSERT .. ON CONFLICT DO NOTHING), so every
 * instance shuffles with the same key; a decided draw never changes (Postgres refuses it).
 */
@Injectable()
export class SaleDraws {
  private readonly log = new Logger(SaleDraws.name);
  private readonly config: SaleBeaconConfig;
  private readonly decided = new Map<string, SaleDraw>();
  private readonly undecidedUntil = new Map<string, number>();
  private readonly fetching = new Map<string, Promise<unknown>>();
  private readonly fetchedAt = new Map<string, number>();
  private readonly fetched = new Map<string, string>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.config = config.get('saleBeacon', { infer: true });
  }

  /** The sale's draw once decided; null while it is not (and for a product without a waiting room). */
  async of(productId: string): Promise<SaleDraw | null> {
    const known = this.decided.get(productId);
    if (known) return known;
    if ((this.undecidedUntil.get(productId) ?? 0) > Date.now()) return null;
    const rows: DrawRow[] = await this.db.query(DRAW, [productId]);
    if (rows.length) return this.remember(productId, toSaleDraw(rows[0]));
    this.undecidedUntil.set(productId, Date.now() + UNDECIDED_FOR_MS);
    if (this.undecidedUntil.size > MAX_KNOWN) this.undecidedUntil.clear();
    return null;
  }

  /** The leader's call for a started sale: its draw, deciding it now if it can; null while it cannot yet. */
  async settle(productId: string, nowMs = Date.now()): Promise<SaleDraw | null> {
    const known = this.decided.get(productId);
    if (known) return known;
    const sale = await this.sale(productId);
    if (!sale) return null;
    const beacon = sale.commitment?.beacon;
    if (!beacon) return this.store(sale, 'NONE', null);
    const signature = this.fetched.get(productId);
    if (signature !== undefined) return this.store(sale, 'VERIFIED', signature);
    if (nowMs >= this.deadlineMs(sale)) return this.store(sale, 'MISSING', null);
    this.fetchSoon(productId, beacon.round, sale.commitment!, nowMs);
    return this.of(productId);
  }

  /**
   * An admin's copy of the committed round's signature: verified, then the draw is decided with it.
   * 'invalid' when it is not the chain's signature of the committed round; 'closed' when the draw
   * was decided otherwise or the deadline passed (the fallback is then decided); 'none' for a sale
   * that committed to no round.
   */
  async post(
    productId: string,
    round: number,
    signature: string,
  ): Promise<SaleDraw | 'invalid' | 'closed' | 'none' | null> {
    const sale = await this.sale(productId);
    if (!sale) return null;
    const beacon = sale.commitment?.beacon;
    if (!beacon) return 'none';
    if (round !== beacon.round || !isRoundSignature(beacon, round, signature.toLowerCase())) return 'invalid';
    const draw =
      Date.now() >= this.deadlineMs(sale)
        ? await this.store(sale, 'MISSING', null)
        : await this.store(sale, 'VERIFIED', signature.toLowerCase());
    return draw.beacon === 'VERIFIED' && draw.signature === signature.toLowerCase() ? draw : 'closed';
  }

  /**
   * Until when the start waits for the round: its due time plus SALE_BEACON_WAIT_MS. With no way
   * to have it (no SALE_BEACON_URL, no wait set) it waits for nothing: the start itself.
   */
  deadlineMs(sale: DrawnSale): number {
    const beacon = sale.commitment!.beacon!;
    if (!this.config.url && this.config.waitMs === 0) return sale.saleStartsAtMs ?? 0;
    return roundTimeMs(beacon, beacon.round) + this.config.waitMs;
  }

  private fetchSoon(productId: string, round: number, commitment: SaleCommitment, nowMs: number): void {
    const url = this.config.url;
    const beacon = commitment.beacon!;
    if (!url || this.fetching.has(productId) || nowMs < roundTimeMs(beacon, round)) return;
    if (nowMs - (this.fetchedAt.get(productId) ?? 0) < FETCH_EVERY_MS) return;
    this.fetchedAt.set(productId, nowMs);
    const fetching = fetchRoundSignature(url, round, this.config.fetchTimeoutMs, this.log)
      .then((signature) => {
        if (signature === undefined) return;
        if (isRoundSignature(beacon, round, signature)) this.fetched.set(productId, signature);
        else this.log.warn(`beacon round ${round} for product ${productId}: the signature does not verify`);
      })
      .finally(() => this.fetching.delete(productId));
    this.fetching.set(productId, fetching);
  }

  private async store(sale: DrawnSale, beacon: SaleDraw['beacon'], signature: string | null): Promise<SaleDraw> {
    const round = sale.commitment?.beacon?.round ?? null;
    await this.db.query(
      `INSERT INTO sale_draws (product_id, beacon, beacon_round, beacon_signature, shuffle_seed)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (product_id) DO NOTHING`,
      [
        sale.id,
        beacon,
        round,
        signature === null ? null : Buffer.from(signature, 'hex'),
        shuffleSeedOf(sale.seed, signature),
      ],
    );
    this.undecidedUntil.delete(sale.id);
    const rows: DrawRow[] = await this.db.query(DRAW, [sale.id]);
    const draw = this.remember(sale.id, toSaleDraw(rows[0]));
    if (draw.beacon === 'MISSING')
      this.log.warn(
        `product ${sale.id}: beacon round ${round} not had by the deadline; the shuffle uses the seed alone`,
      );
    return draw;
  }

  private remember(productId: string, draw: SaleDraw): SaleDraw {
    if (this.decided.size >= MAX_KNOWN) this.decided.clear();
    this.decided.set(productId, draw);
    this.fetched.delete(productId);
    this.fetchedAt.delete(productId);
    return draw;
  }

  private async sale(productId: string): Promise<DrawnSale | null> {
    const rows: Array<{
      id: string;
      seed: Buffer;
      sale_starts_at: Date | null;
      sale_commitment: SaleCommitment | null;
    }> = await this.db.query(SALE, [productId]);
    if (!rows.length) return null;
    const row = rows[0];
    return {
      id: String(row.id),
      seed: row.seed,
      saleStartsAtMs: row.sale_starts_at ? new Date(row.sale_starts_at).getTime() : null,
      commitment: row.sale_commitment,
    };
  }
}
