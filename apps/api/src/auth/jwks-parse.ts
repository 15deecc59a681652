import { createPublicKey, JsonWebKey } from 'node:crypto';
import type { VerificationKey } from './jwks-key-store';

/** The body as text, reading no further than `maxBytes`: a huge answer is refused as it arrives, not after. */
export async function readAtMost(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new Error(`key set larger than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A signing key this API can use (RSA → RS256, P-256 → ES256), or undefined for any other. */
export function toVerificationKey(jwk: JsonWebKey & { use?: unknown; alg?: unknown }): VerificationKey | undefined {
  if (jwk.use !== undefined && jwk.use !== 'sig') return undefined;
  const algorithm = jwk.kty === 'RSA' ? 'RS256' : jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : undefined;
  if (!algorithm || (jwk.alg !== undefined && jwk.alg !== algorithm)) return undefined;
  try {
    const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
    return { pem, algorithm };
  } catch {
    return undefined;
  }
}

/** How long the provider says its answer stays fresh (`max-age`; `no-cache` or `no-store` as 0), or undefined. */
export function freshForMs(cacheControl: string | null): number | undefined {
  if (!cacheControl) return undefined;
  if (/(?:^|,)\s*no-(?:cache|store)\b/i.test(cacheControl)) return 0;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return maxAge ? Number(maxAge[1]) * 1000 : undefined;
}
