import { JwtService } from '@nestjs/jwt';
import { BENCH_AUDIENCE, BENCH_SECRET } from './app-stack';

const jwt = new JwtService({ secret: BENCH_SECRET });
const sign = (sub: string, role: 'user' | 'admin') => jwt.sign({ sub, role }, { algorithm: 'HS256', expiresIn: '1h', audience: BENCH_AUDIENCE });

export const adminToken = (): string => sign('bench-admin', 'admin');

/** The user id (token `sub`) of userTokens(_, tag)'s i-th token. */
export const userOf = (tag: string, i: number): string => `bench-${tag}-${i}`;

/** One token per user `bench-<tag>-<i>`: each is a distinct buyer to the app. */
export function userTokens(count: number, tag: string): string[] {
  return Array.from({ length: count }, (_, i) => sign(userOf(tag, i), 'user'));
}
