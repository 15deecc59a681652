import { createHash } from 'node:crypto';
import { BEACON_SCHEME, BeaconChain, roundDueAt, roundTimeMs } from './beacon-round';
import { canonicalJson } from './canonical-json';

/** The beacon round a sale's shuffle will mix in, and the chain that signs it. */
export interface CommittedBeacon extends BeaconChain {
  scheme: typeof BEACON_SCHEME;
  round: number;
  /** When the round is due (ISO). */
  dueAt: string;
}

/**
 * What decides a sale's order, fixed when its waiting room is created and public from then on
 * (products.sale_commitment): the SHA-256 of the operator's secret seed, when the pre-queue
 * closes, and the beacon round it will be mixed with. `hash` is SHA-256 of the canonical JSON of
 * every other field (canonical-json.ts): the one value a buyer notes before joining.
 */
export interface SaleCommitment {
  version: 1;
  sku: string;
  seedCommitment: string;
  saleStartsAt: string | null;
  preQueueS: number;
  /** Null for a sale without saleStartsAt: its queue opens at once and follows arrival, with no shuffle. */
  beacon: CommittedBeacon | null;
  committedAt: string;
  hash: string;
}

export interface SaleToCommit {
  sku: string;
  seed: Buffer;
  saleStartsAtMs: number | null;
  preQueueS: number;
  chain: BeaconChain;
  nowMs: number;
}

export const seedCommitmentOf = (seed: Buffer): string => createHash('sha256').update(seed).digest('hex');

export function commitSale(sale: SaleToCommit): SaleCommitment {
  const round = sale.saleStartsAtMs === null ? null : roundDueAt(sale.chain, sale.saleStartsAtMs);
  const fields: Omit<SaleCommitment, 'hash'> = {
    version: 1,
    sku: sale.sku,
    seedCommitment: seedCommitmentOf(sale.seed),
    saleStartsAt: sale.saleStartsAtMs === null ? null : new Date(sale.saleStartsAtMs).toISOString(),
    preQueueS: sale.preQueueS,
    beacon:
      round === null
        ? null
        : {
            scheme: BEACON_SCHEME,
            publicKey: sale.chain.publicKey,
            genesisS: sale.chain.genesisS,
            periodS: sale.chain.periodS,
            round,
            dueAt: new Date(roundTimeMs(sale.chain, round)).toISOString(),
          },
    committedAt: new Date(sale.nowMs).toISOString(),
  };
  return { ...fields, hash: commitmentHash(fields) };
}

/** SHA-256 (hex) of the canonical JSON of a commitment's fields, its own `hash` left out. */
export function commitmentHash(commitment: Omit<SaleCommitment, 'hash'> & { hash?: string }): string {
  const { hash: _hash, ...fields } = commitment;
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}
