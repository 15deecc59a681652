import { createVerifier, TokenError } from 'fast-jwt';
import type { AuthConfig } from '../config/auth-config';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

/*
 * A bearer token's signature check: building a verifier per key (once, at start-up or for a new
 * key) and wording a failure. What a token is held to once its signature passed is in
 * token-claims.ts.
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
export function signatureCheck(
  key: string,
  algorithm: 'HS256' | 'RS256' | 'ES256',
  auth: Pick<AuthConfig, 'issuer' | 'audience'>,
): SignatureCheck {
  return createVerifier({
    key,
    algorithms: [algorithm],
    // fast-jwt checks a configured issuer or audience only when the claim is present: require it.
    // iat is required so that the lifetime a token claims can be judged (lifetimeRefusal, token-claims.ts).
    requiredClaims: ['exp', 'iat', ...(auth.issuer ? ['iss'] : []), ...(auth.audience ? ['aud'] : [])],
    clockTolerance: CLOCK_LEEWAY_MS,
    ...(auth.issuer ? { allowedIss: auth.issuer } : {}),
    ...(auth.audience ? { allowedAud: auth.audience } : {}),
    cache: false,
  }) as SignatureCheck;
}

/** What a client is told about a token that failed its check (never which key or what we expected). */
export function checkRefusal(error: unknown): TokenRefusal {
  const code = (error as TokenError).code;
  if (code === TokenError.codes.expired) return new TokenRefusal('token expired');
  if (code === TokenError.codes.missingRequiredClaim)
    return new TokenRefusal('token lacks a required claim (exp and iat, and iss / aud where configured)');
  if (code === TokenError.codes.invalidClaimValue)
    return new TokenRefusal('token issuer, audience or claims not accepted');
  if (code === TokenError.codes.inactive) return new TokenRefusal('token not yet valid', false);
  return new TokenRefusal('invalid token');
}
