import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { dependencyUnavailable, productNotFound } from '../common/errors/app.exception';
import { isDatabaseUnavailable, isRedisUnavailable } from '../common/errors/dependency-errors';
import { AuthUser } from '../auth/auth.types';
import { ProductCatalog } from '../inventory/product-catalog.service';
import { SaleTerms } from '../inventory/product.view';
import { automaticRate } from './admission-rate';
import { ticketIdOf } from './fair-order';
import { QueueStore } from './queue-store';
import { SaleSeeds } from './sale-seeds';
import type { PollReply } from './scripts/poll';
import { TicketClaims, TicketSigner } from './ticket-signer';
import { describeTicket, lostPlace, MAX_POLL_MS, TicketStatusView } from './ticket-status';
import {
  joinClaimRequired,
  joinsPerAddressSpent,
  joinWorkInvalid,
  joinWorkRequired,
  noJoinWork,
  noWaitingRoom,
  queueNotOpen,
  soldOutAtJoin,
  ticketInvalid,
} from './waiting-room-errors';
import { WaitingRoomMetrics } from './waiting-room.metrics';
import { WaitingRoomSettings } from '../sale-terms/waiting-room-settings';
import { challengeSquarings, CheckedWork, JoinWork, JoinWorkAnswer, JoinWorkChallenge } from './join-work/join-work';
import { isOverCapStep, overCapWork } from './join-work/over-cap-work';
import type { AddressLimit, JoinTerms } from './scripts/join';
import { clientAddressKey } from '../common/throttling/client-address-key';
import { SaleDraws } from '../sale-audit/sale-draws.service';
import type { SaleDraw } from '../sale-audit/sale-draw';

type Terms = SaleTerms & { waitingRoom: WaitingRoomSettings };

/** What a join carries besides its user: the client's address and, for a sale that asks it, solved work. */
export interface JoinInput {
  address?: string;
  work?: JoinWorkAnswer;
}

export interface QueueSummary {
  waiting: number;
  admitted: number;
  soldOut: boolean;
  seedCommitment: string | null;
  seed: string | null;
  /** How the start shuffle got its key (sale-audit/sale-draw.ts); PENDING until decided. */
  beacon: SaleDraw['beacon'] | 'PENDING';
}

/** Joining, polling and the public summary. A poll reads Redis once (no Postgres once the product's terms are known). */
@Injectable()
export class WaitingRoomService {
  private readonly pollsPerSecond: number;
  private readonly ipv6Prefix: number;

  constructor(
    private readonly catalog: ProductCatalog,
    private readonly store: QueueStore,
    private readonly signer: TicketSigner,
    private readonly metrics: WaitingRoomMetrics,
    private readonly seeds: SaleSeeds,
    private readonly work: JoinWork,
    private readonly draws: SaleDraws,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.pollsPerSecond = config.get('waitingRoom', { infer: true }).pollsPerSecond;
    this.ipv6Prefix = config.get('edge', { infer: true }).ipv6ClientPrefix;
  }

  /**
   * A user's ticket: theirs again if they hold one (with or without work), else a new one when the
   * sale's defences allow it (waitingRoom.requiredClaim, joinWork, joinsPerAddress; the last two
   * decided in the join's own script, so a refused join spends neither its nonce nor its address).
   * Past joinsPerAddress a join takes a ticket with work of the cap's ladder (over-cap-work.ts);
   * its refusal carries the challenge to solve. The address is counted as its budgets count it
   * (IPV6_CLIENT_PREFIX).
   */
  async join(productId: string, user: AuthUser, input: JoinInput = {}): Promise<TicketStatusView> {
    const terms = await this.termsOf(productId);
    const now = Date.now();
    if (!isJoinable(terms, now)) {
      this.metrics.joins.inc({ outcome: 'refused' });
      throw queueNotOpen();
    }
    const room = terms.waitingRoom;
    this.requireClaim(room, user);
    const userTag = this.signer.userTag(user.id);
    const capped = room.joinsPerAddress !== undefined;
    const work = room.joinWork || capped ? await this.checkWork(terms, user.id, input.work, now) : undefined;
    const joined = await this.redis(() =>
      this.store.defendedJoin(productId, joinTermsOf(terms), {
        userId: user.id,
        nowMs: now,
        address: capped ? clientAddressKey(input.address, this.ipv6Prefix) : undefined,
        work,
      }),
    );
    if (joined === 'sold-out') {
      this.metrics.joins.inc({ outcome: 'sold_out' });
      throw soldOutAtJoin(productId);
    }
    if (typeof joined === 'string') {
      this.metrics.joins.inc({ outcome: joined.replace('-', '_') });
      if (joined === 'work-required') throw joinWorkRequired(productId);
      throw joinWorkInvalid();
    }
    if ('refusal' in joined) {
      this.metrics.joins.inc({ outcome: 'address_limit' });
      throw await this.overCap(terms, joined);
    }
    this.metrics.joins.inc({ outcome: joined.created ? 'new' : 'existing' });
    return this.status(
      terms,
      { productId, epoch: joined.epoch, number: joined.number, userTag },
      undefined,
      joined.status,
    );
  }

  /** The sale's join-work challenge of this minute (404 NOT_FOUND when the sale asks no work), the same for every client. */
  async challenge(productId: string): Promise<JoinWorkChallenge> {
    const terms = await this.termsOf(productId);
    const now = Date.now();
    const squarings = terms.waitingRoom.joinWork?.squarings;
    if (squarings === undefined) throw noJoinWork(productId);
    // Never before the queue opens: no work can start ahead of the door.
    if (!isJoinable(terms, now)) throw queueNotOpen();
    const { seed } = await this.postgres(() => this.seeds.of(productId));
    return this.work.challenge({ productId, seed, squarings }, now);
  }

  private requireClaim(room: WaitingRoomSettings, user: AuthUser): void {
    if (room.requiredClaim === undefined || isTruthy(user.claims?.[room.requiredClaim])) return;
    this.metrics.joins.inc({ outcome: 'claim_required' });
    throw joinClaimRequired(room.requiredClaim);
  }

  /**
   * The checked work's nonce and squarings; null for work that does not check; undefined when none
   * was sent. Its T is the sale's own or a step of its cap's ladder: no other is ever served.
   */
  private async checkWork(
    terms: Terms,
    userId: string,
    work: JoinInput['work'],
    now: number,
  ): Promise<(CheckedWork & { squarings: number }) | null | undefined> {
    if (work === undefined) return undefined;
    const own = terms.waitingRoom.joinWork?.squarings;
    const squarings = challengeSquarings(work.challenge);
    if (squarings === undefined) return null;
    if (squarings !== own && !(terms.waitingRoom.joinsPerAddress && isOverCapStep(overCapWork(own), squarings)))
      return null;
    const { seed } = await this.postgres(() => this.seeds.of(terms.id));
    const checked = await this.work.check({ productId: terms.id, seed, squarings }, userId, work, now);
    return checked && { ...checked, squarings };
  }

  /** The 429 of a join over its address's cap, naming the challenge whose work takes a ticket now. */
  private async overCap(terms: Terms, limit: AddressLimit): Promise<Error> {
    const now = Date.now();
    const retryAfterS = retryAfterAddressCap(terms.saleStartsAtMs, limit.soonestAdmissionExpiryMs, now);
    if (limit.squaringsNeeded === 0) return joinsPerAddressSpent(retryAfterS);
    const { seed } = await this.postgres(() => this.seeds.of(terms.id));
    const challenge = await this.work.challenge({ productId: terms.id, seed, squarings: limit.squaringsNeeded }, now);
    return joinsPerAddressSpent(retryAfterS, challenge);
  }

  /** A ticket's status; `claims`: the ticket as the route's budget already verified and read it (null: not a ticket of this product). */
  async poll(
    productId: string,
    rawTicket: string,
    claims: TicketClaims | null = this.signer.readTicket(rawTicket),
  ): Promise<TicketStatusView> {
    if (!claims || claims.productId !== productId) throw ticketInvalid();
    const terms = await this.termsOf(productId);
    // The ticket is echoed as it came: it was just verified, and signing it again would cost a second HMAC.
    const status = await this.status(terms, claims, rawTicket);
    this.metrics.polls.inc({ state: status.state });
    return status;
  }

  async summary(productId: string): Promise<QueueSummary> {
    const terms = await this.termsOf(productId);
    const now = Date.now();
    const [figures, { seed, commitment }, draw] = await Promise.all([
      this.redis(() => this.store.summary(productId, now)),
      this.seeds.of(productId),
      this.postgres(() => this.draws.of(productId)),
    ]);
    const opensAt = terms.saleStartsAtMs === null ? null : terms.saleStartsAtMs - terms.waitingRoom.preQueueS * 1000;
    const started = terms.saleStartsAtMs === null || now >= terms.saleStartsAtMs;
    return {
      waiting: Math.max(figures.seq - figures.served, 0),
      admitted: figures.admitted,
      soldOut: figures.soldOut,
      seedCommitment: opensAt === null || now >= opensAt ? commitment : null,
      seed: started ? seed.toString('hex') : null,
      beacon: draw?.beacon ?? 'PENDING',
    };
  }

  /** A ticket's status; `known` when the join already read it in its own round trip. */
  private async status(
    terms: Terms,
    claims: TicketClaims,
    ticket = this.signer.ticket(claims),
    known?: PollReply,
  ): Promise<TicketStatusView> {
    const reply = known ?? (await this.redis(() => this.store.poll(claims.productId, claims.number)));
    const now = Date.now();
    // A ticket of a queue that Redis lost (restarted empty, failed over without it) has no place any more.
    if (reply.epoch !== claims.epoch) return { ticket, ticketId: ticketIdOf(claims.number), ...lostPlace() };
    const { admissionExpiresAtMs, ...described } = describeTicket({
      reply,
      nowMs: now,
      saleStartsAtMs: terms.saleStartsAtMs,
      // Until the leader publishes its pace (the sale has not started): the set pace, or the automatic one's prior.
      fallbackRate: terms.waitingRoom.admitPerSecond ?? automaticRate(undefined, terms.id, terms.segments),
      pollsPerSecond: this.pollsPerSecond,
    });
    const view: TicketStatusView = { ticket, ticketId: ticketIdOf(claims.number), ...described };
    if (admissionExpiresAtMs !== undefined) {
      view.admission = this.signer.admission({
        productId: claims.productId,
        place: reply.place,
        expiresAtMs: admissionExpiresAtMs,
        userTag: claims.userTag,
        epoch: claims.epoch,
      });
    }
    return view;
  }

  private async termsOf(productId: string): Promise<Terms> {
    const terms = this.catalog.knownTerms(productId) ?? (await this.catalog.saleTerms(productId));
    if (!terms) throw productNotFound(productId);
    if (!terms.waitingRoom) throw noWaitingRoom(productId);
    return terms as Terms;
  }

  /** The sale's seed is read from Postgres once per instance: while Postgres is unreachable, 503. */
  private async postgres<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      throw Object.assign(dependencyUnavailable('postgres'), { cause: error });
    }
  }

  /**
   * No database fallback for the queue: fairness needs it, so while Redis is unreachable (the
   * dependency-failure policy) the answer is 503; any other failure (a script's bug) is thrown as it is.
   */
  private async redis<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
      throw Object.assign(dependencyUnavailable('redis'), { cause: error });
    }
  }
}

/** From preQueueS before saleStartsAt (at once without a start) until saleEndsAt. */
function isJoinable(terms: Terms, now: number): boolean {
  if (terms.saleEndsAtMs !== null && now >= terms.saleEndsAtMs) return false;
  return terms.saleStartsAtMs === null || now >= terms.saleStartsAtMs - terms.waitingRoom.preQueueS * 1000;
}

const joinTermsOf = (terms: Terms): JoinTerms => ({
  saleStartsAtMs: terms.saleStartsAtMs,
  joinsPerAddress: terms.waitingRoom.joinsPerAddress ?? 0,
  needsWork: terms.waitingRoom.joinWork !== undefined,
  overCap: overCapWork(terms.waitingRoom.joinWork?.squarings),
});

/** A claim that says yes: true, a non-empty string other than "false", a non-zero number. */
function isTruthy(claim: unknown): boolean {
  if (typeof claim === 'string') return claim !== '' && claim !== 'false';
  return claim === true || (typeof claim === 'number' && claim !== 0 && !Number.isNaN(claim));
}

/**
 * When one of a capped address's live tickets may have ended: before the start none can (nothing is
 * admitted yet), so at the start; after it, when the soonest of its admissions expires, but no later
 * than a ticket's longest poll interval, since any of its tickets may be bought (or, still waiting,
 * admitted and bought) before that.
 */
export function retryAfterAddressCap(
  saleStartsAtMs: number | null,
  soonestAdmissionExpiryMs: number | null,
  now: number,
): number {
  const seconds = (ms: number) => Math.ceil(ms / 1000);
  if (saleStartsAtMs !== null && now < saleStartsAtMs)
    return Math.min(Math.max(seconds(saleStartsAtMs - now), 1), 86_400);
  const longest = seconds(MAX_POLL_MS);
  if (soonestAdmissionExpiryMs === null) return longest;
  return Math.min(Math.max(seconds(soonestAdmissionExpiryMs - now), 1), longest);
}
