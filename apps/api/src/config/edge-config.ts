import { isIP } from 'node:net';
import { Env, fail, integer } from './env.schema';

/** `'*'`: any origin may call the API from a browser; a list: only those; empty: none. */
export type CorsOrigins = '*' | string[];

/** Fastify's `trustProxy`: off, every hop, the last N hops, or these proxy addresses / CIDRs. */
export type TrustProxy = boolean | number | string[];

/** What the HTTP edge (browsers, CDNs, proxies in front of the API) is told and trusts. */
export interface EdgeConfig {
  corsOrigins: CorsOrigins;
  trustProxy: TrustProxy;
  /** Cache-Control of GET /products/:id: fresh for maxAgeS, then served stale for up to staleWhileRevalidateS while revalidating. */
  productCache: { maxAgeS: number; staleWhileRevalidateS: number };
}

export function loadEdgeConfig(env: Env, nodeEnv: 'development' | 'production' | 'test'): EdgeConfig {
  return {
    corsOrigins: corsOrigins(env.CORS_ORIGINS, nodeEnv),
    trustProxy: trustProxy(env.TRUST_PROXY),
    productCache: {
      maxAgeS: integer(2, 0, 3600)(env.PRODUCT_CACHE_MAX_AGE_S, 'PRODUCT_CACHE_MAX_AGE_S'),
      staleWhileRevalidateS: integer(10, 0, 86_400)(env.PRODUCT_CACHE_SWR_S, 'PRODUCT_CACHE_SWR_S'),
    },
  };
}

/** Unset: none in production, any elsewhere. Origins are compared as browsers send them (scheme://host[:port]). */
function corsOrigins(raw: string | undefined, nodeEnv: string): CorsOrigins {
  if (raw === undefined || raw.trim() === '') return nodeEnv === 'production' ? [] : '*';
  if (raw.trim() === '*') return '*';
  const expectation = 'must be * or comma-separated origins like https://shop.example.com (scheme://host[:port], no path)';
  return raw.split(',').map((part) => {
    const candidate = part.trim().replace(/\/$/, '');
    let parsed: URL;
    try {
      parsed = new URL(candidate);
    } catch {
      return fail('CORS_ORIGINS', expectation, raw);
    }
    if (!['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== candidate) fail('CORS_ORIGINS', expectation, raw);
    return parsed.origin;
  });
}

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** Off unless told: a client that reaches the API directly must not choose the address it is logged and limited by. */
function trustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return integer(0, 0, 100)(value, 'TRUST_PROXY') || false;
  const expectation = 'must be false, true, a hop count, or comma-separated proxy addresses/CIDRs (or loopback, linklocal, uniquelocal)';
  return value.split(',').map((part) => {
    const entry = part.trim();
    if (NAMED_RANGES.includes(entry) || isAddressOrCidr(entry)) return entry;
    return fail('TRUST_PROXY', expectation, raw!);
  });
}

function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
