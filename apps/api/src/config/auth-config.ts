import { createPublicKey, KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { bool, ConfigError, Env, integer } from './env.schema';
import { isPublishedSecret, PUBLISHED_SECRETS } from './published-secrets';
import { echo, redactQueryValues } from './redact';
import { guessableBecause } from './secret-strength';

type NodeEnv = 'development' | 'production' | 'test';
export type PublicKeyAlgorithm = 'RS256' | 'ES256';

/** How bearer tokens are checked (CONTRACT.md, "Authentication"). */
export interface AuthConfig {
  /** JWT_SECRET (in development and test a published default when unset): also the root of the waiting room's key. */
  secret: string | undefined;
  /** The HS256 key tokens are checked with: `secret`, unless an identity provider is configured without JWT_ALLOW_HS256. */
  hsSecret: string | undefined;
  /** JWT_PUBLIC_KEY_FILE: an identity provider's key, its algorithm fixed by the key's type. */
  publicKey: { pem: string; algorithm: PublicKeyAlgorithm } | undefined;
  /** JWT_JWKS_URL: an identity provider's key set, RS256/ES256 keys by `kid`. */
  jwksUrl: string | undefined;
  /**
   * JWT_JWKS_REFRESH_S: the key set is read again at least this often (a shorter max-age from the
   * provider wins); while reads fail, the last good set is used for 3 times this, then none.
   */
  jwksRefreshS: number;
  issuer: string | undefined;
  audience: string | undefined;
  /** JWT_MAX_AGE_S: the longest lifetime (`exp - iat`) a token may claim; `iat` is then required. */
  maxAgeS: number;
  /** Requests with a missing or bad token one client address may send per second before 429. */
  failuresPerSecondPerAddress: number;
}

const DEV_JWT_SECRET = 'dev-only-secret-change-me';
const MIN_PRODUCTION_SECRET_BYTES = 32;
const refuse = (message: string): never => {
  throw new ConfigError(`Invalid configuration: ${message}`);
};

export function loadAuthConfig(env: Env, nodeEnv: NodeEnv): AuthConfig {
  const production = nodeEnv === 'production';
  const publicKey = env.JWT_PUBLIC_KEY_FILE ? readPublicKey(env.JWT_PUBLIC_KEY_FILE) : undefined;
  const jwksUrl = env.JWT_JWKS_URL ? jwksEndpoint(env.JWT_JWKS_URL, production) : undefined;
  const identityProvider = publicKey !== undefined || jwksUrl !== undefined;
  const configured = env.JWT_SECRET === '' ? undefined : env.JWT_SECRET;
  if (production && configured === undefined && !identityProvider) {
    refuse('JWT_SECRET is required when NODE_ENV=production (or a public key: JWT_PUBLIC_KEY_FILE or JWT_JWKS_URL)');
  }
  if (configured !== undefined) checkSecret('JWT_SECRET', configured, production);
  // Tokens an identity provider signed for its other clients carry the same issuer, and a secret
  // shared with another environment or service signs its tokens too: only the audience tells them apart.
  if (production && !env.JWT_AUDIENCE) {
    refuse(
      'JWT_AUDIENCE is required when NODE_ENV=production (the aud claim this API accepts; tokens signed with the same key for another service or environment are refused by it)',
    );
  }
  // A second way in beside the provider's keys is opened only on purpose.
  const allowHs256 = bool(false)(env.JWT_ALLOW_HS256, 'JWT_ALLOW_HS256');
  if (allowHs256 && configured === undefined && production) refuse('JWT_ALLOW_HS256=true needs a JWT_SECRET');
  const secret = configured ?? (production ? undefined : DEV_JWT_SECRET);
  return {
    secret,
    hsSecret: identityProvider && !allowHs256 ? undefined : secret,
    publicKey,
    jwksUrl,
    // 1 s for tests and the cautious; a day at most, so that a withdrawn key is not trusted for longer.
    jwksRefreshS: integer(300, 1, 86_400)(env.JWT_JWKS_REFRESH_S, 'JWT_JWKS_REFRESH_S'),
    issuer: env.JWT_ISSUER || undefined,
    audience: env.JWT_AUDIENCE || undefined,
    maxAgeS: integer(86_400, 60, 366 * 86_400)(env.JWT_MAX_AGE_S, 'JWT_MAX_AGE_S'),
    failuresPerSecondPerAddress: integer(20, 1, 1_000_000)(env.AUTH_FAILURES_PER_SECOND, 'AUTH_FAILURES_PER_SECOND'),
  };
}

/**
 * A secret production may use: generated (hex or base64 of 32+ random bytes, or what a strength
 * estimator cannot guess), and not one anybody can read in this repository. Outside production
 * only a floor, for the dev defaults.
 */
export function checkSecret(name: string, value: string, production: boolean): string {
  if (!production) {
    if (Buffer.byteLength(value, 'utf8') < 16) refuse(`${name} must be at least 16 bytes`);
    return value;
  }
  if (Buffer.byteLength(value, 'utf8') < MIN_PRODUCTION_SECRET_BYTES)
    refuse(`${name} must be at least ${MIN_PRODUCTION_SECRET_BYTES} bytes when NODE_ENV=production`);
  if (isPublishedSecret(value))
    refuse(`${name} is a value published in this repository; generate your own (openssl rand -hex 32)`);
  // Judged as an attacker holding one signed token would guess (secret-strength.ts has the figures).
  const guessable = guessableBecause(value, PUBLISHED_SECRETS);
  if (guessable !== undefined) {
    refuse(`${name} is guessable: ${guessable} when NODE_ENV=production; generate one (openssl rand -hex 32)`);
  }
  return value;
}

function readPublicKey(path: string): { pem: string; algorithm: PublicKeyAlgorithm } {
  let pem: string;
  let key: KeyObject;
  try {
    pem = readFileSync(path, 'utf8');
    key = createPublicKey(pem);
  } catch (error) {
    return refuse(
      `JWT_PUBLIC_KEY_FILE must name a readable PEM public key (${(error as Error).message.split('\n')[0]})`,
    );
  }
  if (key.asymmetricKeyType === 'rsa') return { pem, algorithm: 'RS256' };
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return { pem, algorithm: 'ES256' };
  return refuse('JWT_PUBLIC_KEY_FILE must hold an RSA key (RS256) or a P-256 EC key (ES256)');
}

/** The key set's URL: https in production, except on the loopback interface (a sidecar). */
function jwksEndpoint(raw: string, production: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_INVALID_URL') throw error;
    return refuse(`JWT_JWKS_URL must be a URL (got ${echoJwksUrl(raw)})`);
  }
  // The key set's address is logged when a read fails: it must not carry a password.
  if (url.username || url.password) refuse(`JWT_JWKS_URL must not carry a user or password (got ${echoJwksUrl(raw)})`);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse('JWT_JWKS_URL must use https:');
  if (production && url.protocol === 'http:' && !loopback)
    refuse('JWT_JWKS_URL must use https: when NODE_ENV=production');
  return url.toString();
}

// A key set's query often is its credential, named the provider's way (`?code=`): none of it is shown.
const echoJwksUrl = (raw: string): string => echo(redactQueryValues(raw));
