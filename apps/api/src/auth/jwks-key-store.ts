import { createPublicKey, JsonWebKey } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { PublicKeyAlgorithm } from '../config/auth-config';

export interface VerificationKey {
  pem: string;
  algorithm: PublicKeyAlgorithm;
}

export interface JwksOptions {
  /** One fetch gives up after this long (an identity provider that hangs must not hold requests). */
  fetchTimeoutMs: number;
  /** Fetches happen at most this often, however many unknown `kid`s arrive. */
  minRefetchMs: number;
  /** A key set larger than this (keys, or bytes of JSON) is refused: memory stays bounded. */
  maxKeys: number;
  maxBytes: number;
  now: () => number;
}

const DEFAULTS: JwksOptions = {
  fetchTimeoutMs: 3000,
  minRefetchMs: 10_000,
  maxKeys: 50,
  maxBytes: 256 * 1024,
  now: () => Date.now(),
};

/**
 * An identity provider's signing keys (JWKS), by `kid`. Read once at start-up and again when a
 * token names a key the cache does not hold (the provider rotated), but such reads never more
 * than once per `minRefetchMs`: a flood of tokens with made-up `kid`s costs the provider one
 * request per window.
 */
export class JwksKeyStore {
  private readonly log = new Logger('JwksKeyStore');
  private readonly options: JwksOptions;
  private keys = new Map<string, VerificationKey>();
  private lastRefetchAt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  /** How many times the key set was requested (for the logs and tests of the refetch bound). */
  fetches = 0;

  constructor(
    private readonly url: string,
    options: Partial<JwksOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** The key for a token's `kid`; without a `kid`, the only key when the set holds one. */
  keyFor(kid: string | undefined): VerificationKey | undefined {
    if (kid === undefined) return this.keys.size === 1 ? this.keys.values().next().value : undefined;
    return this.keys.get(kid);
  }

  /** The start-up read. It opens no refetch window: a key rotated in just before start-up is still picked up at once. */
  load(): Promise<void> {
    return this.inFlight ?? this.fetchOnce();
  }

  /** A read for a token naming an unknown key: at most one per `minRefetchMs`; concurrent callers share one. */
  refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.options.now() - this.lastRefetchAt < this.options.minRefetchMs) return Promise.resolve();
    this.lastRefetchAt = this.options.now();
    return this.fetchOnce();
  }

  private fetchOnce(): Promise<void> {
    this.inFlight = this.fetchKeys()
      .catch((error: unknown) =>
        this.log.warn(`could not read the key set at ${this.url}: ${(error as Error).message}`),
      )
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async fetchKeys(): Promise<void> {
    this.fetches++;
    // No redirects: the configured URL (https in production) is the only place keys come from, never
    // wherever it points to (an http: one included).
    const response = await fetch(this.url, {
      signal: AbortSignal.timeout(this.options.fetchTimeoutMs),
      headers: { accept: 'application/json' },
      redirect: 'manual',
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Error(
        `HTTP ${response.status}: redirects are not followed; set JWT_JWKS_URL to the key set's own address`,
      );
    }
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = JSON.parse(await readAtMost(response, this.options.maxBytes)) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error('no "keys" array');
    if (body.keys.length > this.options.maxKeys) throw new Error(`more than ${this.options.maxKeys} keys`);
    const keys = new Map<string, VerificationKey>();
    for (const jwk of body.keys as Array<JsonWebKey & { kid?: unknown; use?: unknown; alg?: unknown }>) {
      const key = toVerificationKey(jwk);
      if (key) keys.set(typeof jwk.kid === 'string' ? jwk.kid : '', key);
    }
    this.keys = keys;
  }
}

/** The body as text, reading no further than `maxBytes`: a huge answer is refused as it arrives, not after. */
async function readAtMost(response: Response, maxBytes: number): Promise<string> {
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
function toVerificationKey(jwk: JsonWebKey & { use?: unknown; alg?: unknown }): VerificationKey | undefined {
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
