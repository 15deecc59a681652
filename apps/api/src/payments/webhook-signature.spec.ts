import { parseSignatureHeader, signPayload, verifySignature } from './webhook-signature';

const SECRET = 'whsec-test-secret-of-thirty-two-bytes!';
const BODY = Buffer.from('{"eventId":"evt_1","type":"payment.succeeded","orderId":"7","amountCents":1999}');
const NOW = 1_800_000_000;
const header = (t: number, ...signatures: string[]) => [`t=${t}`, ...signatures.map((s) => `v1=${s}`)].join(',');

describe('verifySignature', () => {
  it('accepts the HMAC of "<t>.<raw body>" under the secret', () => {
    expect(verifySignature(header(NOW, signPayload(SECRET, NOW, BODY)), BODY, SECRET, NOW)).toEqual({ valid: true });
  });

  it('refuses a signature over other bytes, even the same JSON re-serialised', () => {
    const reordered = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
    expect(verifySignature(header(NOW, signPayload(SECRET, NOW, BODY)), reordered, SECRET, NOW).valid).toBe(false);
  });

  it('refuses a signature made with another secret, and a missing or malformed header', () => {
    expect(
      verifySignature(header(NOW, signPayload('another-secret-of-thirty-two-bytes', NOW, BODY)), BODY, SECRET, NOW)
        .valid,
    ).toBe(false);
    expect(verifySignature(undefined, BODY, SECRET, NOW).valid).toBe(false);
    expect(verifySignature('v1=abc', BODY, SECRET, NOW).valid).toBe(false);
    expect(verifySignature(header(NOW, 'zz'), BODY, SECRET, NOW).valid).toBe(false);
  });

  it('refuses a timestamp more than 300 s away either way, and accepts one at the edge', () => {
    for (const t of [NOW - 301, NOW + 301])
      expect(verifySignature(header(t, signPayload(SECRET, t, BODY)), BODY, SECRET, NOW).valid).toBe(false);
    for (const t of [NOW - 300, NOW + 300])
      expect(verifySignature(header(t, signPayload(SECRET, t, BODY)), BODY, SECRET, NOW).valid).toBe(true);
  });

  it('accepts any one of several v1 signatures (a provider rotating its secret)', () => {
    const old = signPayload('the-old-secret-of-thirty-two-bytes', NOW, BODY);
    expect(verifySignature(header(NOW, old, signPayload(SECRET, NOW, BODY)), BODY, SECRET, NOW)).toEqual({
      valid: true,
    });
    expect(verifySignature(header(NOW, old, old), BODY, SECRET, NOW).valid).toBe(false);
  });
});

describe('parseSignatureHeader', () => {
  it('reads t and every v1, ignoring other schemes and spaces', () => {
    expect(parseSignatureHeader('t=12, v0=xx, v1=aa ,v1=bb')).toEqual({ timestampS: 12, signatures: ['aa', 'bb'] });
    expect(parseSignatureHeader('t=-5,v1=aa')).toBeUndefined();
  });
});
