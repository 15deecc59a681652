import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { ADMIT, AdmitReply, parseAdmit } from './scripts/admit';
import { FREEZE, parseFreeze } from './scripts/freeze';
import { JOIN, joinArgs, JoinRefusal, JoinReply, JoinRequest, JoinTerms, parseJoins } from './scripts/join';
import { parsePolls, POLL, PollReply } from './scripts/poll';
import { CLAIM, RECEIPT, RELEASE } from './scripts/receipt';
import { runScript } from './scripts/script';
import { parseSummary, SUMMARY, SummaryReply } from './scripts/summary';
import { TurnBatcher } from './turn-batcher';
import { waitingRoomKeys, WaitingRoomKeys } from './waiting-room-keys';

const EPOCH_COUNTER_WRAP = 36 ** 8;

export interface AdmitStep {
  nowMs: number;
  stock: number;
  rate: number;
  ttlMs: number;
  boughtBefore: number;
  graceMs: number;
  perUserLimit: number;
}

/**
 * The queues in Redis: each operation is one script on one product's slot. Joins and polls of one
 * product arriving in the same turn of the event loop share one script call. Redis errors propagate.
 */
@Injectable()
export class QueueStore {
  // A queue's epoch is set by its first join; every join offers a candidate, and only the first one
  // counts. A random prefix per store and a counter make candidates unique across instances and
  // restarts without drawing random bytes on every join (9% of a join's CPU when it did). The counter
  // wraps at 36^8 so that a candidate stays within a ticket's 16 characters of epoch.
  private readonly epochPrefix = randomBytes(6).toString('base64url');
  private epochCounter = 0;
  /** Grouped by product and its terms (the same for every join of a turn). */
  private readonly joins = new TurnBatcher<
    JoinRequest & { productId: string; terms: JoinTerms },
    JoinReply | JoinRefusal
  >((_, joins) => {
    const { productId, terms } = joins[0];
    const k = this.keys(productId);
    return runScript(
      this.redis,
      JOIN,
      [k.meta, k.users, k.soldOutFlag, k.ranks, k.admitted, k.bought, k.buying, k.addresses, k.workNonces],
      joinArgs(terms, this.nextEpochCandidate(), joins),
    ).then((reply) => parseJoins(reply, joins.length));
  });
  private readonly polls = new TurnBatcher<number, PollReply>((productId, numbers) => {
    const k = this.keys(productId);
    return runScript(this.redis, POLL, [k.meta, k.ranks, k.admitted, k.bought, k.soldOutFlag, k.buying], numbers).then(
      parsePolls,
    );
  });

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    private readonly prefix: RedisKeyPrefix,
  ) {}

  keys(productId: string): WaitingRoomKeys {
    return waitingRoomKeys(this.prefix.value, productId);
  }

  /** A join to a sale without defences (no work, no cap per address). */
  join(productId: string, userId: string, nowMs: number, saleStartsAtMs: number | null): Promise<JoinReply> {
    const terms = { saleStartsAtMs, joinsPerAddress: 0, needsWork: false };
    return this.defendedJoin(productId, terms, { userId, nowMs }) as Promise<JoinReply>;
  }

  /** A join under the sale's terms: refused by the script when its work or its address's cap say so. */
  defendedJoin(productId: string, terms: JoinTerms, request: JoinRequest): Promise<JoinReply | JoinRefusal> {
    const batch = `${productId}|${terms.saleStartsAtMs ?? ''}|${terms.joinsPerAddress}|${terms.needsWork ? 1 : 0}|${terms.overCap?.first ?? 0}`;
    return this.joins.add(batch, { ...request, productId, terms });
  }

  poll(productId: string, ticketNumber: number): Promise<PollReply> {
    return this.polls.add(productId, ticketNumber);
  }

  async summary(productId: string, nowMs: number): Promise<SummaryReply> {
    const k = this.keys(productId);
    return parseSummary(await runScript(this.redis, SUMMARY, [k.meta, k.admitted, k.soldOutFlag], [nowMs]));
  }

  async freeze(productId: string): Promise<{ pre: number; ranked: boolean; bought: number }> {
    return parseFreeze(await runScript(this.redis, FREEZE, [this.keys(productId).meta], []));
  }

  /** Stores the pre-queue's places, then marks the queue ranked (in that order: a poll trusts ranks once ranked). */
  async writeRanks(productId: string, places: Buffer): Promise<void> {
    const k = this.keys(productId);
    await this.redis.set(k.ranks, places);
    await this.redis.hset(k.meta, 'ranked', '1');
  }

  async admit(productId: string, step: AdmitStep): Promise<AdmitReply> {
    const k = this.keys(productId);
    const args = [step.nowMs, step.stock, step.rate, step.ttlMs, step.boughtBefore, step.graceMs, step.perUserLimit];
    return parseAdmit(await runScript(this.redis, ADMIT, [k.meta, k.admitted, k.buying, k.admissions], args));
  }

  /** Takes the admission for a purchase; false when it is no longer good. */
  async claim(productId: string, place: number, epoch: string, nowMs: number): Promise<boolean> {
    const k = this.keys(productId);
    return (
      Number(await runScript(this.redis, CLAIM, [k.admitted, k.buying, k.bought, k.meta], [place, nowMs, epoch])) === 1
    );
  }

  async receipt(productId: string, place: number): Promise<boolean> {
    const k = this.keys(productId);
    return Number(await runScript(this.redis, RECEIPT, [k.meta, k.admitted, k.buying, k.bought], [place])) === 1;
  }

  async release(productId: string, place: number): Promise<boolean> {
    const k = this.keys(productId);
    return Number(await runScript(this.redis, RELEASE, [k.admitted, k.buying, k.bought], [place])) === 1;
  }

  private nextEpochCandidate(): string {
    this.epochCounter = (this.epochCounter + 1) % EPOCH_COUNTER_WRAP;
    return `${this.epochPrefix}${this.epochCounter.toString(36)}`;
  }
}
