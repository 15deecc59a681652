import { Env, fail, integer } from './env.schema';
import { TrustProxy, trustProxy } from './trust-proxy';

export type { TrustProxy } from './trust-proxy';

/** `'*'`: any origin may call the API from a browser; a list: only those; empty: none. */
export type CorsOrigins = '*' | string[];

/** What the HTTP edge (browsers, CDNs, proxies in front of the API) is told and trusts. */
export interface EdgeConfig {
  corsOrigins: CorsOrigins;
  trustProxy: TrustProxy;
  /** IPV6_CLIENT_PREFIX: an IPv6 client is counted by this many leading bits of its address (common/throttling/client-address-key.ts). */
  ipv6ClientPrefix: number;
  /** Cache-Control of GET /products/:id: fresh for maxAgeS, then served stale for up to staleWhileRevalidateS while revalidating. */
  productCache: { maxAgeS: number; staleWhileRevalidateS: number };
  /** A request (headers and body) not whole this long after its first byte is answered 408 and closed. */
  requestBodyTimeoutMs: number;
}

export function loadEdgeConfig(env: Env, nodeEnv: 'development' | 'production' | 'test'): EdgeConfig {
  return {
    corsOrigins: corsOrigins(env.CORS_ORIGINS, nodeEnv),
    trustProxy: trustProxy(env.TRUST_PROXY, nodeEnv === 'production'),
    // A /64 is what one home line gets; below /48 (a whole site) neighbours would share budgets.
    ipv6ClientPrefix: integer(64, 48, 128)(env.IPV6_CLIENT_PREFIX, 'IPV6_CLIENT_PREFIX'),
    productCache: {
      maxAgeS: integer(2, 0, 3600)(env.PRODUCT_CACHE_MAX_AGE_S, 'PRODUCT_CACHE_MAX_AGE_S'),
      staleWhileRevalidateS: integer(10, 0, 86_400)(env.PRODUCT_CACHE_SWR_S, 'PRODUCT_CACHE_SWR_S'),
    },
    // At least a second: a slow mobile link sends a purchase's few hundred bytes well within it.
    requestBodyTimeoutMs: integer(10_000, 1000, 120_000)(env.REQUEST_BODY_TIMEOUT_MS, 'REQUEST_BODY_TIMEOUT_MS'),
  };
}

/** Unset: none in production, any elsewhere. Origins are compared as browsers send them (scheme://host[:port]). */
function corsOrigins(raw: string | undefined, nodeEnv: string): CorsOrigins {
  if (raw === undefined || raw.trim() === '') return nodeEnv === 'production' ? [] : '*';
  if (raw.trim() === '*') return '*';
  const expectation =
    'must be * or comma-separated origins like https://shop.example.com (scheme://host[:port], no path)';
  return raw.split(',').map((part) => {
    const candidate = part.trim().replace(/\/$/, '');
    let parsed: URL;
    try {
      parsed = new URL(candidate);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_INVALID_URL') throw error;
      return fail('CORS_ORIGINS', expectation, raw);
    }
    if (!['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== candidate)
      fail('CORS_ORIGINS', expectation, raw);
    return parsed.origin;
  });
}
