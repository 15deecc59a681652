import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { RedisConnection } from '../../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../../common/redis/redis.constants';
import { RedisKeyPrefix } from '../../common/redis/redis-keys';
import { reportBackgroundFailure } from '../../metrics/background-failures';
import { deadlineNow } from '../../purchase-batches/purchase-deadline';
import { AttemptSettlement } from './attempt-settlement';

/** What the API knows of a purchase whose answer was 202 PURCHASE_PENDING. */
export interface PendingRecord {
  userId: string;
  purchaseId: string;
  productId: string;
  quantity: number;
  attemptId: string;
  state: 'PENDING' | 'REFUSED' | 'CREATED';
  /** With REFUSED: the contract code of the refusal. */
  code?: string;
}

// Long past any purchase's deadline and any attempt's life; the order itself stays in Postgres.
const RECORD_TTL_S = 24 * 60 * 60;
const SETTLE_EVERY_MS = 500;
const SETTLE_WITHIN_MS = 1000;
// Attempts this instance keeps settling by itself; past it the records still let any instance
// settle a purchase when its buyer asks (GET /purchases/:id).
const MAX_OPEN_ATTEMPTS = 10_000;

/**
 * The purchases answered 202: a record per purchase in Redis (any instance can answer
 * GET /purchases/:id and settle it), and a loop on the instance that answered them which settles
 * their attempts as soon as Postgres answers again. A settled purchase with no order is REFUSED
 * with DEPENDENCY_UNAVAILABLE: nothing was done, and its attempt can no longer do anything.
 */
@Injectable()
export class PendingPurchases implements OnModuleDestroy {
  private readonly logger = new Logger(PendingPurchases.name);
  private readonly open = new Map<string, PendingRecord[]>();
  private timer?: NodeJS.Timeout;
  private settling = false;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    private readonly prefix: RedisKeyPrefix,
    private readonly settlement: AttemptSettlement,
  ) {}

  /** Records an attempt's purchases as pending and settles them in the background. */
  async remember(records: PendingRecord[]): Promise<void> {
    if (!records.length) return;
    if (this.open.size < MAX_OPEN_ATTEMPTS) this.open.set(records[0].attemptId, records);
    this.timer ??= setInterval(() => void this.settleOpen(), SETTLE_EVERY_MS).unref();
    await Promise.all(records.map((r) => this.write(r))).catch((error) =>
      reportBackgroundFailure(this.logger, 'pending-purchase', `record ${records[0].attemptId}`, error),
    );
  }

  /** The record of this user's purchase answered 202, if there is one. */
  async find(purchaseId: string, userId: string): Promise<PendingRecord | undefined> {
    const raw = await this.redis.hget(this.key(purchaseId), userId);
    return raw ? (JSON.parse(raw) as PendingRecord) : undefined;
  }

  /** The records of every user's purchase with this id answered 202 (an admin's question). */
  async findAll(purchaseId: string): Promise<PendingRecord[]> {
    return Object.values(await this.redis.hgetall(this.key(purchaseId))).map((raw) => JSON.parse(raw) as PendingRecord);
  }

  /** Tries to settle one pending purchase now (a buyer asked); answers the record as it then is. */
  async settleNow(record: PendingRecord, withinMs: number): Promise<PendingRecord> {
    if (record.state !== 'PENDING') return record;
    const orders = await this.settlement.settle(record.attemptId, [record], deadlineNow() + withinMs);
    if (!orders) return record;
    const settled = settledRecord(record, orders[0] !== undefined);
    await this.write(settled);
    return settled;
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async settleOpen(): Promise<void> {
    if (this.settling || !this.open.size) return;
    this.settling = true;
    try {
      for (const [attemptId, records] of this.open) {
        const orders = await this.settlement.settle(attemptId, records, deadlineNow() + SETTLE_WITHIN_MS);
        if (!orders) return; // Postgres still cannot answer; the next tick tries again
        await Promise.all(records.map((r, i) => this.write(settledRecord(r, orders[i] !== undefined))));
        this.open.delete(attemptId);
      }
    } catch (error) {
      reportBackgroundFailure(this.logger, 'pending-purchase', 'settle', error);
    } finally {
      this.settling = false;
    }
  }

  private async write(record: PendingRecord): Promise<void> {
    const key = this.key(record.purchaseId);
    await this.redis.multi().hset(key, record.userId, JSON.stringify(record)).expire(key, RECORD_TTL_S).exec();
  }

  private key(purchaseId: string): string {
    return `${this.prefix.value}purchase:{${purchaseId}}`;
  }
}

function settledRecord(record: PendingRecord, created: boolean): PendingRecord {
  return created ? { ...record, state: 'CREATED' } : { ...record, state: 'REFUSED', code: 'DEPENDENCY_UNAVAILABLE' };
}
