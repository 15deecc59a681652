import { loggedUrl, REDACTED } from './logged-url';

describe('loggedUrl', () => {
  const POLL = '/products/:id/queue/:ticket';

  it('replaces a queue ticket in the path, keeping the product and the query', () => {
    expect(loggedUrl(POLL, '/products/42/queue/v1.7.3.tag.c2ln?x=1')).toBe(`/products/42/queue/${REDACTED}?x=1`);
    expect(loggedUrl(`/api/v2${POLL}`, '/api/v2/products/42/queue/v1.7.3.tag.c2ln')).toBe(
      `/api/v2/products/42/queue/${REDACTED}`,
    );
  });

  it('leaves routes without a secret parameter, and unrouted requests, as they came', () => {
    expect(loggedUrl('/products/:id', '/products/42?x=1')).toBe('/products/42?x=1');
    expect(loggedUrl('/products/:id/queue', '/products/42/queue')).toBe('/products/42/queue');
    expect(loggedUrl(undefined, '/no/such/route/secret')).toBe('/no/such/route/secret');
  });

  it('logs the pattern alone when the URL does not line up with it', () => {
    expect(loggedUrl(POLL, '/products/42/queue/a/b')).toBe(POLL);
  });
});
