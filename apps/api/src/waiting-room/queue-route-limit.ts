import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AuthUser } from '../auth/auth.types';
import { RateBudget, UserRateLimiter } from '../common/throttling/rate-limiter';
import { AddressBudget } from '../common/throttling/address-budget';
import { TypedConfigService } from '../config/app-config.module';
import { TicketClaims, TicketSigner } from './ticket-signer';

/**
 * Budgets of the queue routes, shared by every instance through Redis (common/throttling), each
 * route its own: a join per user (RATE_LIMIT_PER_SECOND); a poll per ticket, the credential of
 * the one client holding it (RATE_LIMIT_PER_SECOND: a waiting client is told to poll at most about
 * twice a second); the public summary per client address (QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS; an
 * IPv6 client by its IPV6_CLIENT_PREFIX prefix), and the join-work challenge per client address
 * with the same figure, on a counter of its own (it is public, and asks for terms and a seed).
 * A poll whose ticket does not verify is not counted: it is refused (400) without touching Redis.
 * While Redis is unreachable or slow each is counted per instance (RateBudget).
 */
@Injectable()
export class QueueRouteLimit {
  private readonly joins: RateBudget;
  private readonly polls: RateBudget;
  private readonly summaries: AddressBudget;
  private readonly challenges: AddressBudget;

  constructor(
    shared: UserRateLimiter,
    @Inject(ConfigService) config: TypedConfigService,
    private readonly signer: TicketSigner,
    /** Joins and polls per caller at RATE_LIMIT_PER_SECOND, each on keys of its own. */
    perCaller: UserRateLimiter,
  ) {
    const perAddress = config.get('waitingRoom', { infer: true }).summaryPerSecondPerAddress;
    const log = new Logger(QueueRouteLimit.name);
    this.joins = new RateBudget(perCaller, log, 'queue.join requests');
    this.polls = new RateBudget(perCaller, log, 'queue.poll requests');
    this.summaries = new AddressBudget(shared, config, perAddress, 'queue.summary requests', log);
    this.challenges = new AddressBudget(shared, config, perAddress, 'queue.challenge requests', log);
  }

  join(user: AuthUser): Promise<void> {
    return this.joins.spend(`queue.join:user:${user.id}`);
  }

  /**
   * Spends the ticket's poll budget, and gives the ticket's claims as it read them (null for a
   * string that is not a ticket of this product: not counted) for the poll itself, which then
   * verifies nothing again: the HMAC was a fifth of a poll's CPU when it ran twice.
   */
  async poll(productId: string, rawTicket: string): Promise<TicketClaims | null> {
    const claims = this.signer.readTicket(rawTicket);
    if (!claims || claims.productId !== productId) return null;
    await this.polls.spend(`queue.poll:ticket:${productId}:${claims.epoch}:${claims.number}`);
    return claims;
  }

  summary(address: string | undefined): Promise<void> {
    return this.summaries.spend('queue.summary', address);
  }

  /** Before the challenge's work: its terms, and its seed the first time. */
  challenge(address: string | undefined): Promise<void> {
    return this.challenges.spend('queue.challenge', address);
  }
}
