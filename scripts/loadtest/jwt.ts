import { createHmac } from 'node:crypto';

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** The `iss` / `aud` a deployment requires (its JWT_ISSUER / JWT_AUDIENCE); production always requires an audience. */
export interface TokenClaims {
  issuer?: string;
  audience?: string;
}

/** An HS256 JWT with the contract's claims (`sub`, `role`, `iat`, `exp`, and `iss` / `aud` when given). */
export function mintToken(
  secret: string,
  sub: string,
  role: 'user' | 'admin',
  ttlS = 12 * 3600,
  claims: TokenClaims = {},
): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(
    JSON.stringify({
      sub,
      role,
      iat: now,
      exp: now + ttlS,
      ...(claims.issuer ? { iss: claims.issuer } : {}),
      ...(claims.audience ? { aud: claims.audience } : {}),
    }),
  );
  const signature = b64url(createHmac('sha256', secret).update(`${header}.${payload}`).digest());
  return `${header}.${payload}.${signature}`;
}
