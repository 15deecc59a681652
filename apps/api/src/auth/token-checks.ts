import { createVerifier, TokenError } from 'fast-jwt';
import type { AuthConfig } from '../config/auth-config';

export interface Claims {
  sub?: unknown;
  role?: unknown;
  exp?: unknown;
}

/** Leeway on exp/nbf for clocks that disagree a little (CONTRACT.md: 30 s). */
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
    requiredClaims: ['exp', ...(auth.issuer ? ['iss'] : []), ...(auth.audience ? ['aud'] : [])],
    clockTolerance: CLOCK_LEEWAY_MS,
    ...(auth.issuer ? { allowedIss: auth.issuer } : {}),
    ...(auth.audience ? { allowedAud: auth.audience } : {}),
    cache: false,
  }) as SignatureCheck;
}

/** What a client is told about a token that failed (never which key or what we expected). */
export function failureMessage(error: unknown): string {
  const code = (error as TokenError).code;
  if (code === TokenError.codes.expired) return 'token expired';
  if (code === TokenError.codes.missingRequiredClaim) return 'token lacks a required claim (exp, and iss / aud where configured)';
  if (code === TokenError.codes.invalidClaimValue) return 'token issuer, audience or claims not accepted';
  if (code === TokenError.codes.inactive) return 'token not yet valid';
  return 'invalid token';
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
