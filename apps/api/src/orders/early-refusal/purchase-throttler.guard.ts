import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { AppException } from '../../common/errors/app.exception';
import { ErrorCode } from '../../common/errors/error-code';
import { isRedisUnavailable } from '../../common/errors/dependency-errors';
import { UserRateLimiter } from '../../common/throttling/user-rate-limiter';
import { EarlyRefusals } from './early-refusals';

const WARN_EVERY_MS = 10_000;

/**
 * The purchase route's rate limit per authenticated user (shared across instances through Redis). When Redis cannot
 * be reached the limit is skipped rather than turning every purchase into an error: the
 * invariants do not depend on it, Postgres enforces them all.
 */
@Injectable()
export class PurchaseThrottlerGuard implements CanActivate {
  private readonly log = new Logger(PurchaseThrottlerGuard.name);
  private lastWarnAt = 0;

  constructor(
    private readonly limiter: UserRateLimiter,
    private readonly early: EarlyRefusals,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<{ params?: { id?: string }; user?: { id?: string }; ip?: string }>();
    // A purchase of a product already known sold out is refused at once; counting it costs more than it saves.
    const productId = request.params?.id;
    if (productId !== undefined && this.early.knownSoldOut(productId)) return true;
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
