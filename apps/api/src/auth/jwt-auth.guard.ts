import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { IS_PUBLIC, REQUIRED_ROLE } from './auth.decorators';
import { AuthUser, Role } from './auth.types';
import { TokenVerifier } from './token-verifier';

/** Global guard: every route needs a valid token unless marked @Public(); @RequireRole narrows it. */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenVerifier,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: AuthUser }>();
    const user = this.tokens.verify(request.headers.authorization);
    request.user = user;
    const role = this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, targets);
    if (role && user.role !== role) throw new AppException(ErrorCode.Forbidden, `this route needs the ${role} role`);
    return true;
  }
}
