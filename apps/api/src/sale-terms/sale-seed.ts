import { randomBytes } from 'node:crypto';

export const SALE_SEED_BYTES = 32;

/**
 * A new sale's shuffle seed: 32 bytes from the system's CSPRNG, drawn when the product and its
 * waiting room are created and stored with them (products.waiting_room_seed). Never derived from
 * a key or the product: a derived seed is the same for every sale of a product id, across
 * database resets and across deployments sharing the key, so one sale's published seed would
 * predict the next one's order. Only its SHA-256 is shown until the sale starts (fair-order.ts).
 */
export const drawSaleSeed = (): Buffer => randomBytes(SALE_SEED_BYTES);
