import { createHmac } from 'node:crypto';

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** An HS256 JWT with the contract's claims (`sub`, `role`, `exp`). */
export function mintToken(secret: string, sub: string, role: 'user' | 'admin', ttlS = 12 * 3600): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ sub, role, iat: now, exp: now + ttlS }));
  const signature = b64url(createHmac('sha256', secret).update(`${header}.${payload}`).digest());
  return `${header}.${payload}.${signature}`;
}
