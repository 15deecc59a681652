import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { AuthUser, Role } from './auth.types';

export const IS_PUBLIC = 'auth:isPublic';
export const REQUIRED_ROLE = 'auth:requiredRole';

/** The route needs no token. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The route needs this role (admin routes). */
export const RequireRole = (role: Role) => SetMetadata(REQUIRED_ROLE, role);

/** The authenticated caller (set by JwtAuthGuard). */
export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthUser => {
  return ctx.switchToHttp().getRequest<{ user: AuthUser }>().user;
});
