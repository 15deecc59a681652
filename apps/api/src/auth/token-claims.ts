import { AuthUser, ROLES, Role } from './auth.types';
import { Claims, CLOCK_LEEWAY_MS, TokenRefusal } from './token-checks';

/*
 * What every first-seen token is held to after its signature passed: a lifetime this API accepts,
 * a subject that is one well-formed user id, a known role; and the header that picks its key.
 */

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
  if (LONE_SURROGATE.test(sub))
    throw new TokenRefusal('token subject must be well-formed Unicode (no lone UTF-16 surrogate)');
  if (typeof role !== 'string' || !ROLES.includes(role as Role))
    throw new TokenRefusal('token role must be "user" or "admin"');
  return { id: sub, role: role as Role, claims: claims as Readonly<Record<string, unknown>> };
}

/** The header's `alg` and `kid`, or undefined when the header is not JSON. */
export function tokenHeader(token: string): { alg?: unknown; kid?: unknown } | undefined {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null ? (header as { alg?: unknown; kid?: unknown }) : undefined;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return undefined;
  }
}
