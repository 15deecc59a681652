import type { SaleCommitment } from '../sale-terms/sale-commitment';

/**
 * How a sale's start shuffle got its key, decided once (sale_draws): VERIFIED, the committed
 * beacon round's signature checked and mixed with the seed; MISSING, the round could not be had by
 * the deadline, so the seed alone (the documented fallback, said in the summary and the audit);
 * NONE, the sale committed to no round (no saleStartsAt, or created before commitments).
 */
export type BeaconOutcome = 'VERIFIED' | 'MISSING' | 'NONE';

export interface SaleDraw {
  beacon: BeaconOutcome;
  round: number | null;
  signature: string | null;
  shuffleSeed: Buffer;
}

/** What deciding a sale's draw needs of it. */
export interface DrawnSale {
  id: string;
  seed: Buffer;
  saleStartsAtMs: number | null;
  commitment: SaleCommitment | null;
}

export interface DrawRow {
  beacon: BeaconOutcome;
  beacon_round: string | null;
  beacon_signature: Buffer | null;
  shuffle_seed: Buffer;
}

export const toSaleDraw = (row: DrawRow): SaleDraw => ({
  beacon: row.beacon,
  round: row.beacon_round === null ? null : Number(row.beacon_round),
  signature: row.beacon_signature?.toString('hex') ?? null,
  shuffleSeed: row.shuffle_seed,
});
