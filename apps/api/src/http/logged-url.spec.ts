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

  describe('a URL that matched no route', () => {
    const TICKET = 't1.42.k3x.17.AbCdEfGhIjKlMnOp.c2lnbmF0dXJlLWhlcmU';

    it('hides whatever follows a queue segment: a trailing slash, extra segments, any spelling', () => {
      expect(loggedUrl(undefined, `/products/42/queue/${TICKET}/`)).toBe(`/products/42/queue/${REDACTED}`);
      expect(loggedUrl(undefined, `/products/42/queue/${TICKET}/more?x=1`)).toBe(`/products/42/queue/${REDACTED}?x=1`);
      expect(loggedUrl(undefined, `/api/products/42/queue//not-a-ticket-shape`)).toBe(
        `/api/products/42/queue/${REDACTED}`,
      );
      expect(loggedUrl(undefined, `/products/42/%71ueue/whatever`)).toBe(`/products/42/%71ueue/${REDACTED}`);
    });

    it('keeps a queue URL with nothing after the queue segment as it came', () => {
      expect(loggedUrl(undefined, '/products/42/queue/')).toBe('/products/42/queue/');
    });
  });

  it('hides a signed ticket or admission anywhere, percent-encoded or not, on any route', () => {
    const ticket = 't1.42.k3x.17.AbCdEfGhIjKlMnOp.c2lnbmF0dXJlLWhlcmU';
    const admission = 'a1.42.k3x.3.1767225600000.AbCdEfGhIjKlMnOp.c2ln';
    expect(loggedUrl(undefined, `/no/such/${ticket}`)).toBe(`/no/such/${REDACTED}`);
    expect(loggedUrl('/products/:id', `/products/${ticket.replace(/\./g, '%2E')}`)).toBe(`/products/${REDACTED}`);
    expect(
      loggedUrl('/products/:id/queue', `/products/42/queue?ticket=${ticket}&admission=${admission}&from=page`),
    ).toBe(`/products/42/queue?ticket=${REDACTED}&admission=${REDACTED}&from=page`);
    expect(loggedUrl(undefined, `/x?t=${ticket.replace(/\./g, '%252E')}`)).toBe(`/x?t=${REDACTED}`);
  });
});
