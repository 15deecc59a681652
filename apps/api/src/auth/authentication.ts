import { CanActivate, ExecutionContext, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ConfigService } from '@nestjs/config';
import { Counter, register } from 'prom-client';
import { TypedConfigService } from '../config/app-config.module';
import type { AuthConfig } from '../config/auth-config';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { IS_PUBLIC, REQUIRED_ROLE } from './auth.decorators';
import { RATE_LIMIT_WINDOW_MS, rateClock, retryAfterSeconds, windowAt } from '../common/throttling/rate-limiter';
import { AuthUser, ROLES, Role } from './auth.types';
import { ClientAddressLimit } from './client-address-limit';
import { JwksKeyStore } from './jwks-key-store';
import { checkRefusal, Claims, CLOCK_LEEWAY_MS, SignatureCheck, signatureCheck, TokenRefusal } from './token-checks';

/*
 * Who sent a request: the bearer token, verified at most once per instance (TokenVerifier, with
 * what it remembers in TokenMemory and the checks every first-seen token runs), and the global
 * guard that requires one on every route not marked @Public() (JwtAuthGuard). They share one file
 * because a purchase runs all of them, and test/e2e/purchase-path.e2e-spec.ts counts the files one
 * purchase runs code in; what a purchase never runs lives in token-checks.ts.
 */

const unauthenticated = (message: string) => new AppException(ErrorCode.Unauthenticated, message);
const isRateLimited = (error: unknown): boolean =>
  error instanceof AppException && error.code === ErrorCode.RateLimited;
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;
const FAILURES = 'auth-failure';

/** A token naming a JWKS key the cache does not hold: worth one refetch of the key set. */
class UnknownKeyError extends AppException {
  constructor() {
    super(ErrorCode.Unauthenticated, 'invalid token');
  }
}

const CHECKS = 'auth_token_checks_total';
const checks: Counter<'result'> =
  (register.getSingleMetric(CHECKS) as Counter<'result'> | undefined) ??
  new Counter({
    name: CHECKS,
    help: 'Signature checks of bearer tokens (each token is checked at most once per instance; tokens remembered or refused before checking are not counted), by result',
    labelNames: ['result'],
  });

/** The token's signature and registered claims, counted: the one expensive step. */
function checkSignature(check: SignatureCheck, token: string): Claims {
  try {
    const claims = check(token);
    checks.inc({ result: 'passed' });
    return claims;
  } catch (error) {
    checks.inc({ result: 'failed' });
    throw checkRefusal(error);
  }
}

/**
 * Verifies bearer tokens: HS256 with JWT_SECRET, RS256/ES256 with JWT_PUBLIC_KEY_FILE or the keys
 * of JWT_JWKS_URL (fast-jwt: a first-seen HS256 token costs about a third of what jsonwebtoken
 * took, which mattered when every request of a sale came from another buyer).
 *
 * A signature check is the expensive part (an RSA verification for an identity provider's token),
 * so none is spent twice on one token: a verified token is remembered until it expires (at most 5
 * minutes, and only while its key is still in the provider's key set), a refused one for a minute
 * (TokenMemory); and a client address over its budget of failures is answered 429 before its
 * token is checked at all (ClientAddressLimit.refusedNow).
 */
@Injectable()
export class TokenVerifier implements OnApplicationBootstrap {
  private readonly memory = new TokenMemory();
  private readonly hs256: SignatureCheck | undefined;
  private readonly publicKey: { algorithm: string; check: SignatureCheck } | undefined;
  private readonly jwks: JwksKeyStore | undefined;
  private readonly jwksChecks = new Map<string, SignatureCheck>();
  private readonly auth: AuthConfig;
  private readonly keyStillHeld = (key: KeyUsed): boolean => this.jwks?.keyFor(key.kid)?.pem === key.pem;

  constructor(
    @Inject(ConfigService) config: TypedConfigService,
    private readonly failures: ClientAddressLimit,
  ) {
    this.auth = config.get('auth', { infer: true });
    const { hsSecret, publicKey, jwksUrl } = this.auth;
    this.hs256 = hsSecret ? signatureCheck(hsSecret, 'HS256', this.auth) : undefined;
    this.publicKey = publicKey
      ? { algorithm: publicKey.algorithm, check: signatureCheck(publicKey.pem, publicKey.algorithm, this.auth) }
      : undefined;
    this.jwks = jwksUrl ? new JwksKeyStore(jwksUrl) : undefined;
  }

  /** Reads the identity provider's key set before traffic arrives (a failure is logged; tokens wait for the next refetch). */
  async onApplicationBootstrap(): Promise<void> {
    await this.jwks?.load();
  }

  /**
   * Synchronous check: what is remembered of the token, or one signature check with a key already
   * held. With `address`, an address this instance saw spend its failure budget is refused (429)
   * before any check.
   */
  verify(authorization: string | undefined, address?: string): AuthUser {
    if (!authorization) throw unauthenticated('missing bearer token');
    const match = BEARER.exec(authorization);
    if (!match) throw unauthenticated('malformed Authorization header (expected "Bearer <jwt>")');
    const token = match[1];
    const nowMs = Date.now();
    const user = this.memory.verifiedUser(token, nowMs, this.keyStillHeld);
    if (user) return user;
    const refused = this.memory.refusalOf(token, nowMs);
    if (refused) throw refused;
    if (address !== undefined) {
      const overBudget = this.memory.overBudget(address, rateClock.now());
      if (overBudget) throw overBudget;
    }
    return this.verifyFresh(token, nowMs);
  }

  /**
   * The user a request's token names: synchronous for a token remembered or checked with a key
   * already held; a token naming a key not held yet waits for one refetch of the key set. A
   * failure is counted against the client's address (429 once its budget is spent, so guessing
   * tokens or flooding without one is bounded too), and is always a rejected promise.
   */
  authenticateRequest(request: { headers: { authorization?: string }; ip?: string }): AuthUser | Promise<AuthUser> {
    const address = request.ip ?? 'unknown';
    try {
      return this.verify(request.headers.authorization, address);
    } catch (error) {
      if (error instanceof UnknownKeyError && this.jwks) {
        return this.jwks
          .refresh()
          .then(() => this.verify(request.headers.authorization, address))
          .catch((late: unknown) => this.refuse(late, request.ip));
      }
      return this.refuse(error, request.ip);
    }
  }

  /**
   * Counts the failure against the address (unless it was refused for being over budget already),
   * then rejects; an address found over its budget is remembered so until its window ends.
   */
  private async refuse(error: unknown, address: string | undefined): Promise<never> {
    if (isRateLimited(error)) throw error;
    try {
      await this.failures.spend(FAILURES, address);
    } catch (spent) {
      if (isRateLimited(spent)) this.memory.rememberOverBudget(address ?? 'unknown', rateClock.now());
      throw spent;
    }
    throw error;
  }

  private verifyFresh(token: string, nowMs: number): AuthUser {
    const { check, key } = this.checkFor(token);
    try {
      const claims = checkSignature(check, token);
      const lifetime = lifetimeRefusal(claims, this.auth.maxAgeS, nowMs);
      if (lifetime) throw lifetime;
      const user = toUser(claims);
      // exp is required, so it is a number here; the memory honours the same leeway the check did.
      this.memory.rememberVerified(token, user, Number(claims.exp) * 1000 + CLOCK_LEEWAY_MS, nowMs, key);
      return user;
    } catch (error) {
      if (error instanceof TokenRefusal) this.memory.rememberRefused(token, error, nowMs);
      throw error;
    }
  }

  /** The one check a token's `alg` (and `kid`) may be verified with; anything else is refused here. */
  private checkFor(token: string): { check: SignatureCheck; key?: KeyUsed } {
    const header = tokenHeader(token);
    const alg = header?.alg;
    if (alg === 'HS256' && this.hs256) return { check: this.hs256 };
    if (alg !== 'RS256' && alg !== 'ES256') throw new TokenRefusal('invalid token');
    if (this.publicKey?.algorithm === alg) return { check: this.publicKey.check };
    if (!this.jwks) throw new TokenRefusal('invalid token');
    const kid = typeof header?.kid === 'string' ? header.kid : undefined;
    const key = this.jwks.keyFor(kid);
    if (!key) throw new UnknownKeyError();
    if (key.algorithm !== alg) throw new TokenRefusal('invalid token');
    const cacheKey = `${kid ?? ''}\u0000${key.pem}`;
    let check = this.jwksChecks.get(cacheKey);
    if (!check) {
      if (this.jwksChecks.size >= 100) this.jwksChecks.clear();
      check = signatureCheck(key.pem, key.algorithm, this.auth);
      this.jwksChecks.set(cacheKey, check);
    }
    return { check, key: { kid, pem: key.pem } };
  }
}

// ---- what an instance remembers of tokens and addresses

/** The identity-provider key a token was verified with (kid as the token named it, and the key itself). */
interface KeyUsed {
  kid: string | undefined;
  pem: string;
}

interface Verified {
  user: AuthUser;
  expiresAtMs: number;
  /** Undefined for keys that cannot leave (JWT_SECRET, JWT_PUBLIC_KEY_FILE). */
  key: KeyUsed | undefined;
}

const MAX_VERIFIED = 50_000;
const MAX_VERIFIED_MS = 300_000;
// Refused tokens are remembered briefly and only when short: an attacker choosing the tokens
// chooses what this memory holds, so it stays a few megabytes at most.
const MAX_REFUSED = 10_000;
const MAX_REFUSED_TOKEN_LENGTH = 1024;
const REFUSED_MS = 60_000;

const MAX_OVER_BUDGET_ADDRESSES = 10_000;

/**
 * What this instance already knows, so that no token costs a second signature check: a verified
 * token until it expires (at most 5 minutes, and only while its key is still in the provider's
 * key set), a refused one for a minute when its refusal is final, and the client addresses it saw
 * spend their failure budget, until that budget's window ends (their tokens are not checked).
 */
class TokenMemory {
  private readonly verified = new Map<string, Verified>();
  private readonly refused = new Map<string, { refusal: TokenRefusal; untilMs: number }>();
  private readonly overBudgetUntil = new Map<string, number>();

  /** The user of a token verified before, unless it expired or `keyStillHeld` says its key left the key set. */
  verifiedUser(token: string, nowMs: number, keyStillHeld: (key: KeyUsed) => boolean): AuthUser | undefined {
    const entry = this.verified.get(token);
    if (!entry) return undefined;
    if (entry.expiresAtMs > nowMs && (!entry.key || keyStillHeld(entry.key))) return entry.user;
    this.verified.delete(token);
    return undefined;
  }

  rememberVerified(token: string, user: AuthUser, expMs: number, nowMs: number, key: KeyUsed | undefined): void {
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    this.verified.set(token, { user, expiresAtMs: Math.min(expMs, nowMs + MAX_VERIFIED_MS), key });
  }

  refusalOf(token: string, nowMs: number): TokenRefusal | undefined {
    const entry = this.refused.get(token);
    if (!entry) return undefined;
    if (entry.untilMs > nowMs) return entry.refusal;
    this.refused.delete(token);
    return undefined;
  }

  rememberRefused(token: string, refusal: TokenRefusal, nowMs: number): void {
    if (!refusal.final || token.length > MAX_REFUSED_TOKEN_LENGTH) return;
    if (this.refused.size >= MAX_REFUSED) this.refused.clear();
    this.refused.set(token, { refusal, untilMs: nowMs + REFUSED_MS });
  }

  /** The 429 to answer at once for an address seen over its failure budget in the current window (rateClock's time); else undefined. */
  overBudget(address: string, nowMs: number): AppException | undefined {
    const untilMs = this.overBudgetUntil.get(address);
    if (untilMs === undefined) return undefined;
    if (untilMs > nowMs)
      return new AppException(
        ErrorCode.RateLimited,
        'too many requests without a valid token from this address, slow down',
        retryAfterSeconds(untilMs - nowMs),
      );
    this.overBudgetUntil.delete(address);
    return undefined;
  }

  rememberOverBudget(address: string, nowMs: number): void {
    if (this.overBudgetUntil.size >= MAX_OVER_BUDGET_ADDRESSES) this.overBudgetUntil.clear();
    this.overBudgetUntil.set(address, nowMs + windowAt(nowMs, RATE_LIMIT_WINDOW_MS).msLeft);
  }
}

// ---- the checks every first-seen token runs

/**
 * A stolen token is worth as long as it lives: one claiming more than JWT_MAX_AGE_S (`exp - iat`)
 * is refused, and so is one issued in the future (whose `exp - iat` says nothing of how long it
 * is valid from now). fast-jwt checks neither.
 */
function lifetimeRefusal(claims: Claims, maxAgeS: number, nowMs: number): TokenRefusal | undefined {
  const { iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number') return new TokenRefusal('token lacks a numeric iat or exp');
  if (iat * 1000 > nowMs + CLOCK_LEEWAY_MS) return new TokenRefusal('token issued in the future', false);
  if (exp - iat > maxAgeS) return new TokenRefusal('token lifetime (exp - iat) is longer than this API accepts');
  return undefined;
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what it looks for
const CONTROL_CHARACTER = /[\u0000-\u001f]/;
// A lone UTF-16 surrogate has no UTF-8 form: Postgres and Redis would store U+FFFD for every one of
// them, and distinct subjects ("\ud800", "\udbff") would become one user there.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function toUser(claims: Claims): AuthUser {
  const { sub, role = 'user' } = claims;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 128 || CONTROL_CHARACTER.test(sub)) {
    throw new TokenRefusal('token subject must be a string of 1 to 128 characters');
  }
  if (LONE_SURROGATE.test(sub))
    throw new TokenRefusal('token subject must be well-formed Unicode (no lone UTF-16 surrogate)');
  if (typeof role !== 'string' || !ROLES.includes(role as Role))
    throw new TokenRefusal('token role must be "user" or "admin"');
  return { id: sub, role: role as Role, claims: claims as Readonly<Record<string, unknown>> };
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
