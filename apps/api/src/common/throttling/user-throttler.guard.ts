import { ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { ThrottlerException, ThrottlerGuard } from '@nestjs/throttler';
import { AppException } from '../errors/app.exception';
import { ErrorCode } from '../errors/error-code';
import { isRedisUnavailable } from '../errors/dependency-errors';

/**
 * Rate limit per authenticated user (shared across instances through Redis). When Redis cannot
 * be reached the limit is skipped rather than turning every purchase into an error: the
 * invariants do not depend on it, Postgres enforces them all.
 */
@Injectable()
export class UserThrottlerGuard extends ThrottlerGuard {
  private readonly log = new Logger(UserThrottlerGuard.name);

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const user = req.user as { id?: string } | undefined;
    return user?.id ? `user:${user.id}` : `ip:${String(req.ip)}`;
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      return await super.canActivate(context);
    } catch (error) {
      if (error instanceof ThrottlerException) {
        throw new AppException(ErrorCode.RateLimited, 'too many purchase attempts, slow down', 1);
      }
      if (isRedisUnavailable(error)) {
        this.log.warn('rate limit skipped: redis unavailable');
        return true;
      }
      throw error;
    }
  }
}
