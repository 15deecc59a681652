import type { JsonWebKey } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { PublicKeyAlgorithm } from '../config/auth-config';
import { redactQueryValues } from '../config/redact';
import { jwksKeys, jwksLastRead, jwksReads } from './jwks-metrics';
import { freshForMs, readAtMost, toVerificationKey } from './jwks-parse';

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
  /**
   * How long the last good set is used while reads fail (3 x JWT_JWKS_REFRESH_S): past it no key
   * verifies anything until a read succeeds, since a key withdrawn meanwhile cannot be told apart.
   */
  maxStaleMs: number;
  now: () => number;
}

const DEFAULTS: JwksOptions = {
  fetchTimeoutMs: 3000,
  minRefetchMs: 10_000,
  maxKeys: 50,
  maxBytes: 256 * 1024,
  maxStaleMs: 900_000,
  now: () => Date.now(),
};

/**
 * An identity provider's signing keys (JWKS), by `kid`. Read at start-up and on a schedule
 * (JwksRefreshSchedule, so that a withdrawn key stops verifying), and again when a token names a
 * key the cache does not hold (the provider rotated), but such reads never more than once per
 * `minRefetchMs`: a flood of tokens with made-up `kid`s costs the provider one request per window.
 * Each read replaces the whole set; a failed one keeps the last good set for `maxStaleMs`.
 */
export class JwksKeyStore {
  private readonly log = new Logger('JwksKeyStore');
  private readonly options: JwksOptions;
  private keys = new Map<string, VerificationKey>();
  private lastRefetchAt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<boolean> | undefined;
  /** When the set in use was read; undefined before the first good read and once it went stale. */
  private readAt: number | undefined;
  /** How long the provider said its last answer stays fresh (Cache-Control), if it said. */
  freshForMs: number | undefined;
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
    if (this.readAt === undefined || this.options.now() - this.readAt > this.options.maxStaleMs) return undefined;
    if (kid === undefined) return this.keys.size === 1 ? this.keys.values().next().value : undefined;
    return this.keys.get(kid);
  }

  /**
   * The start-up and scheduled read; resolves whether it succeeded. It opens no refetch window: a
   * key rotated in just before start-up is still picked up at once.
   */
  load(): Promise<boolean> {
    return this.inFlight ?? this.fetchOnce();
  }

  /** A read for a token naming an unknown key: at most one per `minRefetchMs`; concurrent callers share one. */
  refresh(): Promise<boolean> {
    if (this.inFlight) return this.inFlight;
    if (this.options.now() - this.lastRefetchAt < this.options.minRefetchMs) return Promise.resolve(false);
    this.lastRefetchAt = this.options.now();
    return this.fetchOnce();
  }

  private fetchOnce(): Promise<boolean> {
    // Only the read's own failure (network, HTTP status, a body that is no key set) is "could not read".
    this.inFlight = this.fetchKeys()
      .then(
        () => this.readSucceeded(),
        (error: unknown) => {
          this.log.warn(`could not read the key set at ${redactQueryValues(this.url)}: ${(error as Error).message}`);
          return this.readFailed();
        },
      )
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private readSucceeded(): true {
    this.readAt = this.options.now();
    jwksReads.inc({ result: 'ok' });
    jwksLastRead.set(Date.now() / 1000);
    jwksKeys.set(this.keys.size);
    return true;
  }

  /** Keeps the last good set while it is young enough, and says which it did. */
  private readFailed(): false {
    jwksReads.inc({ result: 'failed' });
    if (this.readAt === undefined) return false;
    const ageMs = this.options.now() - this.readAt;
    if (ageMs <= this.options.maxStaleMs) {
      this.log.warn(
        `keeping the key set read ${Math.round(ageMs / 1000)} s ago; its keys stop verifying tokens once it is ${Math.round(this.options.maxStaleMs / 1000)} s old`,
      );
      return false;
    }
    this.log.error(
      `the key set is ${Math.round(ageMs / 1000)} s old, past ${Math.round(this.options.maxStaleMs / 1000)} s: dropped; tokens of the identity provider are refused until a read succeeds`,
    );
    this.readAt = undefined;
    this.keys = new Map();
    jwksKeys.set(0);
    return false;
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
    this.freshForMs = freshForMs(response.headers.get('cache-control'));
  }
}
