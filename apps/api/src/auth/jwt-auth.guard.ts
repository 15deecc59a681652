import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { IS_PUBLIC, REQUIRED_ROLE } from './auth.decorators';
import { AuthUser, Role } from './auth.types';
import { ClientAddressLimit } from './client-address-limit';
import { TokenVerifier } from './token-verifier';

interface RouteAccess {
  isPublic: boolean;
  role: Role | undefined;
}

type GuardedRequest = { headers: Record<string, string | undefined>; ip?: string; user?: AuthUser };

/**
 * Global guard: every route needs a valid token unless marked @Public(); @RequireRole narrows it.
 * A route's decorators never change, so they are read once per handler, not on every request.
 * A known token is checked synchronously; a failure is counted against the client's address
 * (429 once its budget is spent, so guessing tokens or flooding without one is bounded too).
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  private readonly access = new WeakMap<object, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenVerifier,
    private readonly failures: ClientAddressLimit,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const { isPublic, role } = this.accessOf(context);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    // The purchase route's pipeline verified the token already (once per request is enough).
    if (request.user) return this.admit(request, request.user, role);
    let user: AuthUser;
    try {
      user = this.tokens.verify(request.headers.authorization);
    } catch {
      return this.authenticateSlowly(request, role);
    }
    return this.admit(request, user, role);
  }

  /** A token the fast path refused: maybe a rotated JWKS key (one refetch), else a counted failure. */
  private async authenticateSlowly(request: GuardedRequest, role: Role | undefined): Promise<boolean> {
    let user: AuthUser;
    try {
      user = await this.tokens.authenticate(request.headers.authorization);
    } catch (error) {
      await this.failures.spend('auth-failure', request.ip);
      throw error;
    }
    return this.admit(request, user, role);
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
      access = { isPublic: !!this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets), role: this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, targets) };
      this.access.set(handler, access);
    }
    return access;
  }
}
