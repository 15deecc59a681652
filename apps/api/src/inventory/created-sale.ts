import type { SaleBeaconConfig } from '../config/sale-beacon-config';
import { commitSale, SaleCommitment } from '../sale-terms/sale-commitment';
import { drawSaleSeed } from '../sale-terms/sale-seed';
import { toWaitingRoomSettings } from '../sale-terms/waiting-room-settings';
import type { CreateProductDto } from './dto/create-product.dto';

/** What a new sale through a waiting room is stored with: its seed, its commitment, and its terms as the first admin action. */
export interface CreatedSale {
  seed: Buffer;
  commitment: SaleCommitment;
  terms: Record<string, unknown>;
}

/**
 * The seed and commitment of a product created with a waiting room (null without one). Both are
 * fixed here, before the product exists and so before anyone can join; the commitment names the
 * beacon round due at the start from the chain configured now (SALE_BEACON_*), so a later change
 * of configuration changes no sale already committed.
 */
export function createdSale(dto: CreateProductDto, chain: SaleBeaconConfig, nowMs: number): CreatedSale | null {
  if (!dto.waitingRoom) return null;
  const waitingRoom = toWaitingRoomSettings(dto.waitingRoom);
  const seed = drawSaleSeed();
  const saleStartsAtMs = dto.saleStartsAt ? Date.parse(dto.saleStartsAt) : null;
  const commitment = commitSale({
    sku: dto.sku,
    seed,
    saleStartsAtMs,
    preQueueS: waitingRoom.preQueueS,
    chain: { publicKey: chain.publicKey, genesisS: chain.genesisS, periodS: chain.periodS },
    nowMs,
  });
  const terms = {
    sku: dto.sku,
    name: dto.name,
    priceCents: dto.priceCents,
    stock: dto.stock,
    perUserLimit: dto.perUserLimit ?? 1,
    segments: dto.segments ?? 1,
    saleStartsAt: commitment.saleStartsAt,
    saleEndsAt: dto.saleEndsAt ? new Date(dto.saleEndsAt).toISOString() : null,
    waitingRoom,
  };
  return { seed, commitment, terms };
}
