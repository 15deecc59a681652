import { parseIdempotencyKey } from './purchase-pipeline';
import { purchaseFingerprint } from './purchase.service';

describe('Idempotency-Key', () => {
  it('accepts a UUID and is absent when not sent', () => {
    expect(parseIdempotencyKey('0b9c2a52-6c33-4a7e-9d7e-5d8f0b0f7f21')).toBe('0b9c2a52-6c33-4a7e-9d7e-5d8f0b0f7f21');
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each(['', 'x'.repeat(129), 'has space', 'star*', 'ünïcode', "quote'"])(
    'refuses %p with VALIDATION_FAILED',
    (key) => {
      expect(() => parseIdempotencyKey(key)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    },
  );

  it('fingerprints the product and quantity, so a different body under the same key is detected', () => {
    expect(purchaseFingerprint('1', 1)).toBe(purchaseFingerprint('1', 1));
    expect(purchaseFingerprint('1', 1)).not.toBe(purchaseFingerprint('1', 2));
    expect(purchaseFingerprint('1', 1)).not.toBe(purchaseFingerprint('11', 1));
  });
});
