import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { SoldOutFlags } from '../../inventory/sold-out-flags';
import { AppException } from '../errors/app.exception';
import { ErrorCode } from '../errors/error-code';
import { isRedisUnavailable } from '../errors/dependency-errors';
import { UserRateLimiter } from './user-rate-limiter';

const WARN_EVERY_MS = 10_000;

/**
 * Rate limit per authenticated user (shared across instances through Redis). When Redis cannot
 * be reached the limit is skipped rather than turning every purchase into an error: the
 * invariants do not depend on it, Postgres enforces them all.
 */
@Injectable()
export class UserThrottlerGuard implements CanActivate {
  private readonly log = new Logger(UserThrottlerGuard.name);
  private lastWarnAt = 0;

  constructor(
    private readonly limiter: UserRateLimiter,
    private readonly soldOut: SoldOutFlags,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<{ params?: { id?: string }; user?: { id?: string }; ip?: string }>();
    // A purchase of a product already known sold out is refused at once; counting it costs more than it saves.
    const productId = request.params?.id;
    if (productId !== undefined && this.soldOut.knownSoldOut(productId)) return true;
    const tracker = request.user?.id ? `user:${request.user.id}` : `ip:${String(request.ip)}`;
    let decision;
    try {
      decision = await this.limiter.hit(tracker);
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
      if (Date.now() - this.lastWarnAt >= WARN_EVERY_MS) {
        this.lastWarnAt = Date.now();
        this.log.warn('rate limit skipped: redis unavailable');
      }
      return true;
    }
    if (!decision.allowed) throw new AppException(ErrorCode.RateLimited, 'too many purchase attempts, slow down', decision.retryAfterS);
    return true;
  }
}
