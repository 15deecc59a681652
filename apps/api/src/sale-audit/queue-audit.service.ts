import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import type { AdminAction } from '../sale-terms/admin-action-chain';
import type { SaleCommitment } from '../sale-terms/sale-commitment';
import { QueueStore } from '../waiting-room/queue-store';
import { TicketSigner } from '../waiting-room/ticket-signer';
import { auditChunks } from './queue-audit';
import { readAuditedQueue, readTicketHashes } from './queue-audit-reads';
import { SaleDraws } from './sale-draws.service';

/** A built file is served again for this long: a crowd asking for it costs one build a product. */
const FRESH_MS = 2000;
/** Files of this many products stay built at once (100,000 tickets: about 15 MB each). */
const MAX_BUILT = 2;
const SALE = `SELECT waiting_room_seed AS seed, sale_starts_at, sale_commitment FROM products WHERE id = $1 AND waiting_room IS NOT NULL`;
const ACTIONS = `SELECT seq, at, action, details, prev_hash AS "prevHash", hash FROM sale_admin_actions WHERE product_id = $1 ORDER BY seq`;

interface Built {
  at: number;
  chunks: Promise<string[] | null>;
}

/**
 * Builds a sale's audit file (queue-audit.ts) from Postgres (commitment, seed, draw, admin
 * actions) and Redis (queue-audit-reads.ts: the queue's counters, shuffle, admission log, and the
 * users' tickets). Nothing of it runs
 * on a join or a poll: it is made when asked, at most once per product every FRESH_MS.
 */
@Injectable()
export class QueueAudits {
  private readonly built = new Map<string, Built>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    private readonly store: QueueStore,
    private readonly signer: TicketSigner,
    private readonly draws: SaleDraws,
  ) {}

  /** The file's chunks; null for a product without a waiting room. */
  file(productId: string): Promise<string[] | null> {
    const now = Date.now();
    const known = this.built.get(productId);
    if (known && now - known.at < FRESH_MS) return known.chunks;
    if (!known && this.built.size >= MAX_BUILT) this.built.delete(this.built.keys().next().value!);
    const chunks = this.build(productId, now);
    this.built.set(productId, { at: now, chunks });
    chunks.catch(() => this.built.get(productId)?.chunks === chunks && this.built.delete(productId));
    return chunks;
  }

  private async build(productId: string, nowMs: number): Promise<string[] | null> {
    const rows: Array<{ seed: Buffer; sale_starts_at: Date | null; sale_commitment: SaleCommitment | null }> =
      await this.db.query(SALE, [productId]);
    if (!rows.length) return null;
    const sale = rows[0];
    const started = sale.sale_starts_at === null || nowMs >= new Date(sale.sale_starts_at).getTime();
    const draw = started ? await this.draws.of(productId) : null;
    const keys = this.store.keys(productId);
    const queue = draw ? await readAuditedQueue(this.redis, keys) : null;
    const hashes = queue
      ? await readTicketHashes(this.redis, keys, this.signer, { productId, epoch: queue.epoch, seq: queue.seq })
      : [];
    const adminActions: AdminAction[] = await this.db.query(ACTIONS, [productId]);
    const chunks: string[] = [];
    // A turn of the event loop per chunk of tickets: joins and polls on this instance go on meanwhile.
    for (const chunk of auditChunks({
      productId,
      nowMs,
      commitment: sale.sale_commitment,
      seed: started ? sale.seed : null,
      draw,
      queue,
      ticketHash: (n) => hashes[n] ?? null,
      adminActions,
    })) {
      chunks.push(chunk);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return chunks;
  }
}
