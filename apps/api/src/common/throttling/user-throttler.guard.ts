import { ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerException, ThrottlerGuard, ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import { SoldOutFlags } from '../../inventory/sold-out-flags';
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

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly soldOut: SoldOutFlags,
  ) {
    super(options, storage, reflector);
  }

  /** A purchase of a product already known sold out is refused at once; counting it costs more than it saves. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    const productId = context.switchToHttp().getRequest<{ params?: { id?: string } }>().params?.id;
    return (productId !== undefined && this.soldOut.knownSoldOut(productId)) || super.shouldSkip(context);
  }

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
