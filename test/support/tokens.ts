import { createHmac } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { TEST_JWT_SECRET } from './app-harness';

export type TestRole = 'user' | 'admin';

const jwt = new JwtService({ secret: TEST_JWT_SECRET });
const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** A valid HS256 bearer token for the test secret (1 h). */
export function token(sub: string, role: TestRole = 'user', secret = TEST_JWT_SECRET): string {
  const service = secret === TEST_JWT_SECRET ? jwt : new JwtService({ secret });
  return service.sign({ sub, role }, { algorithm: 'HS256', expiresIn: '1h' });
}

export const adminToken = (sub = 'admin-1'): string => token(sub, 'admin');

/** `{ authorization: 'Bearer <token>' }` for a user (or admin). */
export const auth = (sub: string, role: TestRole = 'user'): Record<string, string> => ({ authorization: `Bearer ${token(sub, role)}` });
export const adminAuth = (): Record<string, string> => ({ authorization: `Bearer ${adminToken()}` });
export const bearer = (raw: string): Record<string, string> => ({ authorization: `Bearer ${raw}` });

/** A token signed with the right algorithm but the wrong secret. */
export const forgedToken = (sub = 'forger', role: TestRole = 'admin'): string => token(sub, role, 'some-other-secret-of-enough-length');

/** A correctly signed token whose exp is in the past. */
export function expiredToken(sub = 'late-user', role: TestRole = 'user'): string {
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign({ sub, role, iat: now - 7200, exp: now - 3600 }, { algorithm: 'HS256' });
}

/** An unsigned token (`alg: none`) claiming admin. */
export function algNoneToken(sub = 'anon', role: TestRole = 'admin'): string {
  const now = Math.floor(Date.now() / 1000);
  return `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify({ sub, role, iat: now, exp: now + 3600 }))}.`;
}

/** An HS256 token signed with the test secret carrying arbitrary claims (bad `sub`, bad `role`, ...). */
export function tokenWithClaims(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ iat: now, exp: now + 3600, ...claims }));
  const signature = b64url(createHmac('sha256', TEST_JWT_SECRET).update(`${header}.${payload}`).digest());
  return `${header}.${payload}.${signature}`;
}
