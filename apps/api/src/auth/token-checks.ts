import { createVerifier, TokenError } from 'fast-jwt';
import type { AuthConfig } from '../config/auth-config';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { AuthUser, ROLES, Role } from './auth.types';

/*
 * What a bearer token must be, whichever key verifies it: its signature (one verifier per key,
 * pinned to that key's algorithm), its claims, and its lifetime.
 */

export interface Claims {
  sub?: unknown;
  role?: unknown;
  exp?: unknown;
  iat?: unknown;
}

/** A refusal, and whether the same token could pass later (not yet valid) or never will. */
export class TokenRefusal extends AppException {
  constructor(
    message: string,
    readonly final = true,
  ) {
    super(ErrorCode.Unauthenticated, message);
  }
}

/** Leeway on exp/nbf/iat for clocks that disagree a little (CONTRACT.md: 30 s). */
export const CLOCK_LEEWAY_MS = 30_000;

export type SignatureCheck = (token: string) => Claims;

/**
 * One verifier per key, each pinned to the one algorithm its key is for: the HS256 secret never
 * checks an RS256/ES256 token and a public key never checks an HS256 one (so a token "signed"
 * with the public key as an HMAC secret fails), and `none` is accepted by no verifier.
 */
export function signatureCheck(key: string, algorithm: 'HS256' | 'RS256' | 'ES256', auth: Pick<AuthConfig, 'issuer' | 'audience'>): SignatureCheck {
  return createVerifier({
    key,
    algorithms: [algorithm],
    // fast-jwt checks a configured issuer or audience only when the claim is present: require it.
    // iat is required so that the lifetime a token claims can be judged (lifetimeRefusal).
    requiredClaims: ['exp', 'iat', ...(auth.issuer ? ['iss'] : []), ...(auth.audience ? ['aud'] : [])],
    clockTolerance: CLOCK_LEEWAY_MS,
    ...(auth.issuer ? { allowedIss: auth.issuer } : {}),
    ...(auth.audience ? { allowedAud: auth.audience } : {}),
    cache: false,
  }) as SignatureCheck;
}

/**
 * A stolen token is worth as long as it lives: one claiming more than JWT_MAX_AGE_S (`exp - iat`)
 * is refused, and so is one issued in the future (whose `exp - iat` says nothing of how long it
 * is valid from now). fast-jwt checks neither.
 */
export function lifetimeRefusal(claims: Claims, maxAgeS: number, nowMs: number): TokenRefusal | undefined {
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

export function toUser(claims: Claims): AuthUser {
  const { sub, role = 'user' } = claims;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 128 || CONTROL_CHARACTER.test(sub)) {
    throw new TokenRefusal('token subject must be a string of 1 to 128 characters');
  }
  if (LONE_SURROGATE.test(sub)) throw new TokenRefusal('token subject must be well-formed Unicode (no lone UTF-16 surrogate)');
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) throw new TokenRefusal('token role must be "user" or "admin"');
  return { id: sub, role: role as Role };
}

/** What a client is told about a token that failed its check (never which key or what we expected). */
export function checkRefusal(error: unknown): TokenRefusal {
  const code = (error as TokenError).code;
  if (code === TokenError.codes.expired) return new TokenRefusal('token expired');
  if (code === TokenError.codes.missingRequiredClaim) return new TokenRefusal('token lacks a required claim (exp and iat, and iss / aud where configured)');
  if (code === TokenError.codes.invalidClaimValue) return new TokenRefusal('token issuer, audience or claims not accepted');
  if (code === TokenError.codes.inactive) return new TokenRefusal('token not yet valid', false);
  return new TokenRefusal('invalid token');
}

/** The header's `alg` and `kid`, or undefined when the header is not JSON. */
export function tokenHeader(token: string): { alg?: unknown; kid?: unknown } | undefined {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null ? (header as { alg?: unknown; kid?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}
