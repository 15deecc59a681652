import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { canonicalJson } from './canonical-json';

/** One admin action on a sale, as the audit file lists it. */
export interface AdminAction {
  seq: number;
  /** When it was recorded (ISO, the instance's clock). */
  at: string;
  /** `create` (its details: the terms) or `set-stock` ({ stock }). */
  action: string;
  details: Record<string, unknown>;
  /** The previous entry's hash; the first entry's is the sale commitment's hash. */
  prevHash: string;
  hash: string;
}

/** SHA-256 (hex) of `prevHash`, a newline, and the canonical JSON of { seq, at, action, details }. */
export function adminActionHash(entry: Omit<AdminAction, 'hash'>): string {
  const { prevHash, seq, at, action, details } = entry;
  return createHash('sha256')
    .update(`${prevHash}\n${canonicalJson({ seq, at, action, details })}`)
    .digest('hex');
}

/**
 * Appends an action to the sale's chain inside the caller's transaction, so the action and its
 * entry commit together or not at all. A transaction-scoped advisory lock per product orders
 * appends (no two entries take one place), and is taken after the caller's row locks: purchases
 * never take it, so it adds no lock cycle with them. The first entry follows the sale's commitment
 * (`genesisHash`, else read from the product); a product without one records nothing (null).
 */
export async function appendAdminAction(
  tx: EntityManager,
  productId: string,
  action: string,
  details: Record<string, unknown>,
  genesisHash?: string,
): Promise<AdminAction | null> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('sale-admin-actions'), $1::int)`, [Number(productId) | 0]);
  const last: Array<{ seq: number; hash: string }> = await tx.query(
    'SELECT seq, hash FROM sale_admin_actions WHERE product_id = $1 ORDER BY seq DESC LIMIT 1',
    [productId],
  );
  const prevHash = last[0]?.hash ?? genesisHash ?? (await commitmentHashOf(tx, productId));
  // A sale that was never committed (no waiting room, or created before commitments) keeps no chain.
  if (prevHash === null) return null;
  const unsigned = { seq: (last[0]?.seq ?? 0) + 1, at: new Date().toISOString(), action, details, prevHash };
  const entry = { ...unsigned, hash: adminActionHash(unsigned) };
  await tx.query(
    `INSERT INTO sale_admin_actions (product_id, seq, at, action, details, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)`,
    [productId, entry.seq, entry.at, action, JSON.stringify(details), entry.prevHash, entry.hash],
  );
  return entry;
}

async function commitmentHashOf(tx: EntityManager, productId: string): Promise<string | null> {
  const rows: Array<{ hash: string | null }> = await tx.query(
    "SELECT sale_commitment->>'hash' AS hash FROM products WHERE id = $1",
    [productId],
  );
  return rows[0]?.hash ?? null;
}
