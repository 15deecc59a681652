/**
 * Every secret value written anywhere in this repository (.env.example, compose, docs, scripts,
 * tests, benches). Anyone who has read the repository can sign tokens, tickets or webhook events
 * with them, so production refuses to start with any of them. `published-secrets.spec.ts` scans
 * the tracked files and fails when a secret-looking value is missing here: add it.
 */
export const PUBLISHED_SECRETS: readonly string[] = [
  'dev-only-secret-change-me',
  'change-me-in-production-please',
  'test-secret-at-least-16-chars',
  'demo-secret-for-the-flash-sale',
  'bench-secret-0123456789',
  'a-production-secret',
  'short',
  'from-env',
  'whsec-test-secret-of-thirty-two-bytes!',
  'whsec_e2e-secret-of-at-least-thirty-two-bytes',
  'invariant-test-secret-0123456789',
  'report-test-secret-0123456789',
  'too-short',
  // payments-config.spec.ts writes 'x'.repeat(32)
  'x',
  'x'.repeat(32),
];

const published = new Set(PUBLISHED_SECRETS);

export const isPublishedSecret = (value: string): boolean => published.has(value);
