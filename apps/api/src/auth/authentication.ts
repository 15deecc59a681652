import { createVerifier, TokenError } from 'fast-jwt';
import { CanActivate, ExecutionContext, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import type { AuthConfig } from '../config/auth-config';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { IS_PUBLIC, REQUIRED_ROLE } from './auth.decorators';
import { AuthUser, ROLES, Role } from './auth.types';
import { ClientAddressLimit } from './client-address-limit';
import { JwksKeyStore } from './jwks-key-store';

/*
 * Who sent a request: the bearer token, verified once per request (TokenVerifier), and the global
 * guard that requires one on every route not marked @Public() (JwtAuthGuard).
 */

const unauthenticated = (message: string) => new AppException(ErrorCode.Unauthenticated, message);
const MAX_CACHED_TOKENS = 50_000;
const MAX_CACHE_MS = 300_000;
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;

/** A token naming a JWKS key the cache does not hold: worth one refetch of the key set. */
class UnknownKeyError extends AppException {
  constructor() {
    super(ErrorCode.Unauthenticated, 'invalid token');
  }
}

/**
 * Verifies bearer tokens: HS256 with JWT_SECRET, RS256/ES256 with JWT_PUBLIC_KEY_FILE or the keys
 * of JWT_JWKS_URL (fast-jwt: a first-seen HS256 token costs about a third of what jsonwebtoken
 * took, which mattered when every request of a sale came from another buyer). A verified token is
 * remembered until it expires (its `exp` plus the leeway, at most 5 minutes), so a buyer who
 * retries costs one map lookup instead of a signature check and a JSON parse.
 */
@Injectable()
export class TokenVerifier implements OnApplicationBootstrap {
  private readonly verified = new Map<string, { user: AuthUser; expiresAtMs: number }>();
  private readonly hs256: SignatureCheck | undefined;
  private readonly publicKey: { algorithm: string; check: SignatureCheck } | undefined;
  private readonly jwks: JwksKeyStore | undefined;
  private readonly jwksChecks = new Map<string, SignatureCheck>();
  private readonly auth: AuthConfig;

  constructor(
    @Inject(ConfigService) config: TypedConfigService,
    private readonly failures: ClientAddressLimit,
  ) {
    this.auth = config.get('auth', { infer: true });
    const { hsSecret, publicKey, jwksUrl } = this.auth;
    this.hs256 = hsSecret ? signatureCheck(hsSecret, 'HS256', this.auth) : undefined;
    this.publicKey = publicKey ? { algorithm: publicKey.algorithm, check: signatureCheck(publicKey.pem, publicKey.algorithm, this.auth) } : undefined;
    this.jwks = jwksUrl ? new JwksKeyStore(jwksUrl) : undefined;
  }

  /** Reads the identity provider's key set before traffic arrives (a failure is logged; tokens wait for the next refetch). */
  async onApplicationBootstrap(): Promise<void> {
    await this.jwks?.load();
  }

  /** Synchronous check: the cache, or one signature check with a key already held. */
  verify(authorization: string | undefined): AuthUser {
    if (!authorization) throw unauthenticated('missing bearer token');
    const match = BEARER.exec(authorization);
    if (!match) throw unauthenticated('malformed Authorization header (expected "Bearer <jwt>")');
    const token = match[1];
    const cached = this.verified.get(token);
    if (cached && cached.expiresAtMs > Date.now()) return cached.user;
    return this.verifyFresh(token);
  }

  /**
   * The user a request's token names: synchronous for a token already verified or checked with a
   * key already held; otherwise authenticate(), and a failure is counted against the client's
   * address (429 once its budget is spent, so guessing tokens or flooding without one is bounded too).
   */
  authenticateRequest(request: { headers: { authorization?: string }; ip?: string }): AuthUser | Promise<AuthUser> {
    try {
      return this.verify(request.headers.authorization);
    } catch {
      return this.authenticate(request.headers.authorization).catch(async (error: unknown) => {
        await this.failures.spend('auth-failure', request.ip);
        throw error;
      });
    }
  }

  /** verify(), and when the token names a JWKS key not held yet, one refetch of the set (rate-bounded) and a second try. */
  async authenticate(authorization: string | undefined): Promise<AuthUser> {
    try {
      return this.verify(authorization);
    } catch (error) {
      if (!(error instanceof UnknownKeyError) || !this.jwks) throw error;
      await this.jwks.refresh();
      return this.verify(authorization);
    }
  }

  private verifyFresh(token: string): AuthUser {
    const check = this.checkFor(token);
    let claims: Claims;
    try {
      claims = check(token);
    } catch (error) {
      throw unauthenticated(failureMessage(error));
    }
    const user = toUser(claims);
    // exp is required, so it is a number here; the cache honours the same leeway the check did.
    const expiresAtMs = Math.min(Number(claims.exp) * 1000 + CLOCK_LEEWAY_MS, Date.now() + MAX_CACHE_MS);
    if (this.verified.size >= MAX_CACHED_TOKENS) this.verified.clear();
    this.verified.set(token, { user, expiresAtMs });
    return user;
  }

  /** The one check a token's `alg` (and `kid`) may be verified with; anything else is refused here. */
  private checkFor(token: string): SignatureCheck {
    const header = tokenHeader(token);
    const alg = header?.alg;
    if (alg === 'HS256' && this.hs256) return this.hs256;
    if (alg !== 'RS256' && alg !== 'ES256') throw unauthenticated('invalid token');
    if (this.publicKey?.algorithm === alg) return this.publicKey.check;
    if (!this.jwks) throw unauthenticated('invalid token');
    const kid = typeof header?.kid === 'string' ? header.kid : undefined;
    const key = this.jwks.keyFor(kid);
    if (!key) throw new UnknownKeyError();
    if (key.algorithm !== alg) throw unauthenticated('invalid token');
    const cacheKey = `${kid ?? ''}\u0000${key.pem}`;
    let check = this.jwksChecks.get(cacheKey);
    if (!check) {
      if (this.jwksChecks.size >= 100) this.jwksChecks.clear();
      check = signatureCheck(key.pem, key.algorithm, this.auth);
      this.jwksChecks.set(cacheKey, check);
    }
    return check;
  }
}

// ---- the global guard

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
    return user instanceof Promise ? user.then((known) => this.admit(request, known, role)) : this.admit(request, user, role);
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

// ---- the token's checks

// eslint-disable-next-line no-control-regex -- control characters are exactly what it looks for
const CONTROL_CHARACTER = /[\u0000-\u001f]/;
const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);
// A lone UTF-16 surrogate has no UTF-8 form: Postgres and Redis would store U+FFFD for every one of
// them, and distinct subjects ("\ud800", "\udbff") would become one user there.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function toUser(claims: Claims): AuthUser {
  const { sub, role = 'user' } = claims;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 128 || hasControlCharacter(sub)) {
    throw unauthenticated('token subject must be a string of 1 to 128 characters');
  }
  if (LONE_SURROGATE.test(sub)) throw unauthenticated('token subject must be well-formed Unicode (no lone UTF-16 surrogate)');
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) throw unauthenticated('token role must be "user" or "admin"');
  return { id: sub, role: role as Role };
}

// The checks a token passes, whichever key verifies it.

interface Claims {
  sub?: unknown;
  role?: unknown;
  exp?: unknown;
}

/** Leeway on exp/nbf for clocks that disagree a little (CONTRACT.md: 30 s). */
const CLOCK_LEEWAY_MS = 30_000;

type SignatureCheck = (token: string) => Claims;

/**
 * One verifier per key, each pinned to the one algorithm its key is for: the HS256 secret never
 * checks an RS256/ES256 token and a public key never checks an HS256 one (so a token "signed"
 * with the public key as an HMAC secret fails), and `none` is accepted by no verifier.
 */
function signatureCheck(key: string, algorithm: 'HS256' | 'RS256' | 'ES256', auth: Pick<AuthConfig, 'issuer' | 'audience'>): SignatureCheck {
  return createVerifier({
    key,
    algorithms: [algorithm],
    // fast-jwt checks a configured issuer or audience only when the claim is present: require it.
    requiredClaims: ['exp', ...(auth.issuer ? ['iss'] : []), ...(auth.audience ? ['aud'] : [])],
    clockTolerance: CLOCK_LEEWAY_MS,
    ...(auth.issuer ? { allowedIss: auth.issuer } : {}),
    ...(auth.audience ? { allowedAud: auth.audience } : {}),
    cache: false,
  }) as SignatureCheck;
}

/** What a client is told about a token that failed (never which key or what we expected). */
function failureMessage(error: unknown): string {
  const code = (error as TokenError).code;
  if (code === TokenError.codes.expired) return 'token expired';
  if (code === TokenError.codes.missingRequiredClaim) return 'token lacks a required claim (exp, and iss / aud where configured)';
  if (code === TokenError.codes.invalidClaimValue) return 'token issuer, audience or claims not accepted';
  if (code === TokenError.codes.inactive) return 'token not yet valid';
  return 'invalid token';
}

/** The header's `alg` and `kid`, or undefined when the header is not JSON. */
function tokenHeader(token: string): { alg?: unknown; kid?: unknown } | undefined {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null ? (header as { alg?: unknown; kid?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}
