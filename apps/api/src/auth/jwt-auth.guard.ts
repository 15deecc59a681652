import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { IS_PUBLIC, REQUIRED_ROLE } from './auth.decorators';
import { AuthUser, Role } from './auth.types';
import { TokenVerifier } from './authentication';

interface RouteAccess {
  isPublic: boolean;
  role: Role | undefined;
}

type GuardedRequest = { headers: Record<string, string | undefined>; ip?: string; user?: AuthUser };

/**
 * Global guard: every route needs a valid token unless marked @Public(); @RequireRole narrows it.
 * A route's decorators never change, so they are read once per handler, not on every request.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  private readonly access = new WeakMap<object, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenVerifier,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const { isPublic, role } = this.accessOf(context);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    // The purchase route's pipeline verified the token already (once per request is enough).
    const user = request.user ?? this.tokens.authenticateRequest(request);
    return user instanceof Promise
      ? user.then((known) => this.admit(request, known, role))
      : this.admit(request, user, role);
  }

  private admit(request: GuardedRequest, user: AuthUser, role: Role | undefined): boolean {
    request.user = user;
    if (role && user.role !== role) throw new AppException(ErrorCode.Forbidden, `this route needs the ${role} role`);
    return true;
  }

  private accessOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    let access = this.access.get(handler);
    if (!access) {
      const targets = [handler, context.getClass()];
      access = {
        isPublic: !!this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets),
        role: this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, targets),
      };
      this.access.set(handler, access);
    }
    return access;
  }
}
