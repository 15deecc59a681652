import { ifNoneMatchHits, publicCacheControl, weakEtag } from './conditional-get';

describe('conditional GET', () => {
  const body = JSON.stringify({ id: '1', stock: 5 });
  const etag = weakEtag(body);

  it('tags equal bodies alike and different bodies apart, as a weak quoted tag', () => {
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(weakEtag(JSON.stringify({ id: '1', stock: 5 }))).toBe(etag);
    expect(weakEtag(JSON.stringify({ id: '1', stock: 4 }))).not.toBe(etag);
  });

  it('hits on the same tag, with or without W/, alone or in a list, and on *', () => {
    expect(ifNoneMatchHits(etag, etag)).toBe(true);
    expect(ifNoneMatchHits(etag.slice(2), etag)).toBe(true);
    expect(ifNoneMatchHits(`W/"other", ${etag}`, etag)).toBe(true);
    expect(ifNoneMatchHits(' * ', etag)).toBe(true);
  });

  it('misses on no header, another tag, or a tag without its quotes', () => {
    expect(ifNoneMatchHits(undefined, etag)).toBe(false);
    expect(ifNoneMatchHits('', etag)).toBe(false);
    expect(ifNoneMatchHits('W/"other"', etag)).toBe(false);
    expect(ifNoneMatchHits(etag.slice(3, -1), etag)).toBe(false);
  });

  it('writes max-age and stale-while-revalidate for shared caches', () => {
    expect(publicCacheControl(2, 10)).toBe('public, max-age=2, stale-while-revalidate=10');
  });
});
