import { docsPageSecurityHeaders, jsonApiSecurityHeaders } from './security-headers';

describe('security headers', () => {
  it('tells browsers a JSON answer is never to be sniffed, rendered, framed or referred from', () => {
    expect(jsonApiSecurityHeaders()).toEqual({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'cross-origin-resource-policy': 'same-origin',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'x-permitted-cross-domain-policies': 'none',
    });
  });

  it('leaves out the CSP for the Swagger UI page, which runs scripts, and keeps the rest', () => {
    const docs = docsPageSecurityHeaders();
    expect(docs['content-security-policy']).toBeUndefined();
    expect(docs['x-content-type-options']).toBe('nosniff');
  });

  it('computes a frozen set once: nothing per request to build', () => {
    expect(Object.isFrozen(jsonApiSecurityHeaders())).toBe(true);
  });
});
