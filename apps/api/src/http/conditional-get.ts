import { createHash } from 'node:crypto';

/**
 * A weak validator of a JSON representation: equal bodies give equal tags. Weak because a proxy
 * may re-encode (compress) the body without changing what it means.
 */
export const weakEtag = (body: string): string => `W/"${createHash('sha1').update(body).digest('base64url')}"`;

/**
 * Whether `If-None-Match` names this representation (RFC 9110 13.1.2, weak comparison): `*`, or
 * any listed tag equal to `etag` once the `W/` prefix is ignored.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return header.split(',').some((listed) => {
    const tag = listed.trim();
    return (tag.startsWith('W/') ? tag.slice(2) : tag) === opaque;
  });
}

/** Cache-Control of a public read that may be served stale while a cache revalidates it. */
export const publicCacheControl = (maxAgeS: number, staleWhileRevalidateS: number): string =>
  `public, max-age=${maxAgeS}, stale-while-revalidate=${staleWhileRevalidateS}`;
