import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Counter } from 'prom-client';
import { registeredCounter } from '../metrics/registered-metrics';
import { TypedConfigService } from '../config/app-config.module';
import type { AuthConfig } from '../config/auth-config';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { RateClock } from '../common/throttling/rate-limiter';
import { clientAddressKey } from '../common/throttling/client-address-key';
import { AuthUser } from './auth.types';
import { ClientAddressLimit } from './client-address-limit';
import { JwksKeyStore } from './jwks-key-store';
import { JwksRefreshSchedule } from './jwks-refresh';
import { checkRefusal, Claims, CLOCK_LEEWAY_MS, SignatureCheck, signatureCheck, TokenRefusal } from './token-checks';
import { lifetimeRefusal, tokenHeader, toUser } from './token-claims';
import { KeyUsed, TokenMemory } from './token-memory';

/*
 * Who sent a request: the bearer token, verified at most once per instance. What the instance
 * remembers of tokens and addresses is TokenMemory (token-memory.ts); what a first-seen token is
 * held to after its signature, token-claims.ts; building verifiers and wording failures,
 * token-checks.ts; the global guard that requires a token on every route not marked @Public(),
 * jwt-auth.guard.ts.
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
const checks: Counter<'result'> = registeredCounter(
  CHECKS,
  'Signature checks of bearer tokens (each token is checked at most once per instance; tokens remembered or refused before checking are not counted), by result',
  ['result'],
);

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
export class TokenVerifier implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly memory = new TokenMemory();
  private readonly hs256: SignatureCheck | undefined;
  private readonly publicKey: { algorithm: string; check: SignatureCheck } | undefined;
  private readonly jwks: JwksKeyStore | undefined;
  private readonly jwksSchedule: JwksRefreshSchedule | undefined;
  private readonly jwksChecks = new Map<string, SignatureCheck>();
  private readonly auth: AuthConfig;
  /** IPV6_CLIENT_PREFIX: what is remembered of an address is its budget's key, an IPv6 client's prefix. */
  private readonly ipv6Prefix: number;
  private readonly keyStillHeld = (key: KeyUsed): boolean => this.jwks?.keyFor(key.kid)?.pem === key.pem;

  constructor(
    @Inject(ConfigService) config: TypedConfigService,
    private readonly failures: ClientAddressLimit,
    private readonly rateClock: RateClock,
  ) {
    this.auth = config.get('auth', { infer: true });
    this.ipv6Prefix = config.get('edge', { infer: true }).ipv6ClientPrefix;
    const { hsSecret, publicKey, jwksUrl } = this.auth;
    this.hs256 = hsSecret ? signatureCheck(hsSecret, 'HS256', this.auth) : undefined;
    this.publicKey = publicKey
      ? { algorithm: publicKey.algorithm, check: signatureCheck(publicKey.pem, publicKey.algorithm, this.auth) }
      : undefined;
    const refreshMs = this.auth.jwksRefreshS * 1000;
    this.jwks = jwksUrl ? new JwksKeyStore(jwksUrl, { maxStaleMs: 3 * refreshMs }) : undefined;
    this.jwksSchedule = this.jwks ? new JwksRefreshSchedule(this.jwks, refreshMs) : undefined;
  }

  /**
   * Reads the identity provider's key set before traffic arrives (a failure is logged; tokens wait
   * for the next read), then on its schedule.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.jwksSchedule?.start();
  }

  onApplicationShutdown(): void {
    this.jwksSchedule?.stop();
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
      const overBudget = this.memory.overBudget(clientAddressKey(address, this.ipv6Prefix), this.rateClock.now());
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
      if (isRateLimited(spent))
        this.memory.rememberOverBudget(clientAddressKey(address, this.ipv6Prefix), this.rateClock.now());
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
