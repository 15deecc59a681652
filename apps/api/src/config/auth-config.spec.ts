import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from './app-config';
import { ConfigError, Env } from './env.schema';
import { PUBLISHED_SECRETS } from './published-secrets';

const KEYS_DIR = join(__dirname, '../../../../.infra/test-keys');
const ownSecret = () => randomBytes(32).toString('hex');
const OWN_DATABASE = 'postgres://flashsale:own-password@db.internal:5432/flashsale';
const OWN_REDIS = 'redis://:own-redis-password@redis.internal:6379';
const production = (env: Env): Env => ({
  NODE_ENV: 'production',
  DATABASE_URL: OWN_DATABASE,
  REDIS_URL: OWN_REDIS,
  JWT_AUDIENCE: 'flash-sale-api',
  ...env,
});

/** The one line start-up prints (main.ts writes the ConfigError's message and exits). */
function refusal(env: Env): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('loadConfig accepted the environment');
}

function pemFile(name: string, type: 'rsa' | 'ec' | 'ed25519'): string {
  mkdirSync(KEYS_DIR, { recursive: true });
  const { publicKey } =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  const path = join(KEYS_DIR, `${name}-${process.pid}.pem`);
  writeFileSync(path, publicKey.export({ type: 'spki', format: 'pem' }));
  return path;
}

describe('start-up in production (fail closed)', () => {
  it('treats an unset NODE_ENV as production', () => {
    expect(refusal({})).toMatch(/JWT_SECRET is required when NODE_ENV=production/);
    expect(
      loadConfig({ JWT_SECRET: ownSecret(), JWT_AUDIENCE: 'shop', DATABASE_URL: OWN_DATABASE, REDIS_URL: OWN_REDIS })
        .nodeEnv,
    ).toBe('production');
  });

  it('refuses a JWT_SECRET shorter than 32 bytes, naming it', () => {
    const secret = ownSecret().slice(0, 32);
    expect(refusal(production({ JWT_SECRET: secret.slice(0, 31) }))).toMatch(
      /^Invalid configuration: JWT_SECRET must be at least 32 bytes/,
    );
    // 32 bytes pass the length rule and meet the strength rule: 16 random bytes in hex are not the recipe.
    expect(refusal(production({ JWT_SECRET: secret }))).toMatch(/^Invalid configuration: JWT_SECRET is guessable/);
    const recipe = randomBytes(32).toString('base64url');
    expect(loadConfig(production({ JWT_SECRET: recipe })).auth.hsSecret).toBe(recipe);
  });

  it.each(PUBLISHED_SECRETS.filter((secret) => Buffer.byteLength(secret) >= 32))(
    'refuses the published secret %s',
    (secret) => {
      expect(refusal(production({ JWT_SECRET: secret }))).toMatch(/JWT_SECRET is a value published in this repository/);
    },
  );

  it('refuses every published secret, whatever its length', () => {
    for (const secret of PUBLISHED_SECRETS) expect(refusal(production({ JWT_SECRET: secret }))).toMatch(/JWT_SECRET/);
  });

  it('refuses published or short webhook and waiting-room secrets too', () => {
    const jwt = ownSecret();
    expect(refusal(production({ JWT_SECRET: jwt, WAITING_ROOM_SECRET: 'too-short' }))).toMatch(
      /WAITING_ROOM_SECRET must be at least 32 bytes/,
    );
    expect(
      refusal(production({ JWT_SECRET: jwt, PAYMENT_WEBHOOK_SECRET: 'whsec_e2e-secret-of-at-least-thirty-two-bytes' })),
    ).toMatch(/PAYMENT_WEBHOOK_SECRET is a value published/);
  });

  it('starts with a public key instead of a secret, and then needs a waiting-room secret of its own', () => {
    const file = pemFile('rsa', 'rsa');
    expect(refusal(production({ JWT_PUBLIC_KEY_FILE: file, JWT_AUDIENCE: 'shop' }))).toMatch(
      /WAITING_ROOM_SECRET is required/,
    );
    const config = loadConfig(
      production({ JWT_PUBLIC_KEY_FILE: file, JWT_AUDIENCE: 'shop', WAITING_ROOM_SECRET: ownSecret() }),
    );
    expect(config.auth).toMatchObject({ hsSecret: undefined, publicKey: { algorithm: 'RS256' } });
    const jwks = loadConfig(
      production({
        JWT_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
        JWT_AUDIENCE: 'shop',
        WAITING_ROOM_SECRET: ownSecret(),
      }),
    );
    expect(jwks.auth.jwksUrl).toBe('https://idp.example.com/.well-known/jwks.json');
  });

  it('wants JWT_AUDIENCE in production when tokens come from an identity provider', () => {
    expect(
      refusal(
        production({
          JWT_AUDIENCE: undefined,
          JWT_PUBLIC_KEY_FILE: pemFile('rsa-aud', 'rsa'),
          WAITING_ROOM_SECRET: ownSecret(),
        }),
      ),
    ).toMatch(/^Invalid configuration: JWT_AUDIENCE is required/);
    expect(
      refusal(
        production({
          JWT_AUDIENCE: undefined,
          JWT_JWKS_URL: 'https://idp.example.com/jwks',
          JWT_ISSUER: 'https://idp.example.com/',
          WAITING_ROOM_SECRET: ownSecret(),
        }),
      ),
    ).toMatch(/JWT_AUDIENCE is required/);
    expect(
      loadConfig({ NODE_ENV: 'test', JWT_JWKS_URL: 'https://idp.example.com/jwks' }).auth.audience,
    ).toBeUndefined();
  });

  it('wants JWT_AUDIENCE in production with HS256 alone too: a token of another environment sharing the secret has no aud of ours', () => {
    expect(refusal(production({ JWT_AUDIENCE: undefined, JWT_SECRET: ownSecret() }))).toMatch(
      /^Invalid configuration: JWT_AUDIENCE is required when NODE_ENV=production/,
    );
    expect(
      refusal(production({ JWT_AUDIENCE: '', JWT_SECRET: ownSecret(), JWT_ISSUER: 'https://shop.example.com' })),
    ).toMatch(/JWT_AUDIENCE is required/);
    expect(loadConfig(production({ JWT_SECRET: ownSecret() })).auth.audience).toBe('flash-sale-api');
    expect(loadConfig({ NODE_ENV: 'development' }).auth.audience).toBeUndefined();
  });

  it.each([
    ['one repeated character', 'a'.repeat(32)],
    ['a repeated pair', 'ab'.repeat(24)],
    ['the alphabet in order', 'abcdefghijklmnopqrstuvwxyzABCDEF'],
    ['a counting run, twice', '0123456789abcdef0123456789abcdef'],
    ['a word typed four times', 'password'.repeat(4)],
  ])('refuses a JWT_SECRET of 32+ bytes that is %s (entropy, not only length)', (_shape, secret) => {
    expect(refusal(production({ JWT_SECRET: secret }))).toMatch(/^Invalid configuration: JWT_SECRET is guessable/);
    expect(refusal(production({ JWT_SECRET: ownSecret(), PAYMENT_WEBHOOK_SECRET: secret }))).toMatch(
      /^Invalid configuration: PAYMENT_WEBHOOK_SECRET is guessable/,
    );
  });

  // Each of these passed the length-times-character-entropy estimate this check used before.
  const GUESSABLE = [
    ['a word repeated, then a digit', 'passwordpasswordpasswordpassword1'],
    ['a keyboard walk', 'qwertyuiopasdfghjklzxcvbnm123456'],
    ['a published value with a suffix', 'dev-only-secret-change-me-please!!'],
    ['a phrase in words', 'my-super-secret-jwt-key-for-production'],
    ['substitutions of a common password', 'P@ssw0rd!P@ssw0rd!P@ssw0rd!P@ssw0rd!'],
    ['six words', 'plum tuesday orbit cactus violin harbour'],
    ['32 random hex characters (16 bytes, and not the recipe)', 'c5e7f7a6a1f3b2d49e0c8d7b6a5f4e3d'],
    ['hex of a phrase', Buffer.from('the quick brown fox jumps over the lazy dog').toString('hex')],
    ['base64 of a phrase', Buffer.from('the quick brown fox jumps over the lazy dog').toString('base64')],
  ];

  it.each(GUESSABLE)('refuses a JWT_SECRET that is %s: judged by an estimator, not by its characters', (_, value) => {
    expect(refusal(production({ JWT_SECRET: value }))).toMatch(
      /^Invalid configuration: JWT_SECRET is guessable: .* when NODE_ENV=production; generate one \(openssl rand -hex 32\)$/,
    );
  });

  it('refuses the guessable examples as webhook and waiting-room secrets too', () => {
    for (const [, value] of GUESSABLE.slice(0, 3)) {
      expect(refusal(production({ JWT_SECRET: ownSecret(), PAYMENT_WEBHOOK_SECRET: value }))).toMatch(
        /^Invalid configuration: PAYMENT_WEBHOOK_SECRET is guessable/,
      );
      expect(refusal(production({ JWT_SECRET: ownSecret(), WAITING_ROOM_SECRET: value }))).toMatch(
        /^Invalid configuration: WAITING_ROOM_SECRET is guessable/,
      );
    }
  });

  it('takes hex or base64 of 32 random bytes, and a long random passphrase', () => {
    for (let i = 0; i < 200; i++)
      expect(loadConfig(production({ JWT_SECRET: randomBytes(32).toString('hex') })).auth.secret).toHaveLength(64);
    for (const encoding of ['base64', 'base64url'] as const)
      for (let i = 0; i < 3; i++)
        expect(loadConfig(production({ JWT_SECRET: randomBytes(32).toString(encoding) })).auth.secret).toBeTruthy();
    const passphrase = ['plum', 'tuesday', 'orbit', 'cactus', 'violin', 'harbour', 'lemon', 'gravel'].join(' ');
    expect(loadConfig(production({ JWT_SECRET: passphrase })).auth.secret).toBe(passphrase);
  });

  it('caps the lifetime a token may claim at JWT_MAX_AGE_S, 24 h by default', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).auth.maxAgeS).toBe(86_400);
    expect(loadConfig({ NODE_ENV: 'test', JWT_MAX_AGE_S: '3600' }).auth.maxAgeS).toBe(3600);
    expect(refusal({ NODE_ENV: 'test', JWT_MAX_AGE_S: 'a day' })).toMatch(
      /^Invalid configuration: JWT_MAX_AGE_S must be an integer from 60/,
    );
    expect(refusal({ NODE_ENV: 'test', JWT_MAX_AGE_S: String(10 * 365 * 86_400) })).toMatch(
      /JWT_MAX_AGE_S must be an integer/,
    );
  });

  it('checks HS256 tokens beside an identity provider only when JWT_ALLOW_HS256=true', () => {
    const secret = ownSecret();
    const file = pemFile('rsa-hs', 'rsa');
    const beside = loadConfig(production({ JWT_SECRET: secret, JWT_PUBLIC_KEY_FILE: file, JWT_AUDIENCE: 'shop' }));
    // The secret still keys the waiting room; it no longer signs tokens this API accepts.
    expect(beside.auth).toMatchObject({ secret, hsSecret: undefined });
    expect(beside.jwtSecret).toBe(secret);
    expect(
      loadConfig(
        production({ JWT_SECRET: secret, JWT_PUBLIC_KEY_FILE: file, JWT_AUDIENCE: 'shop', JWT_ALLOW_HS256: 'true' }),
      ).auth.hsSecret,
    ).toBe(secret);
    expect(loadConfig({ NODE_ENV: 'development', JWT_PUBLIC_KEY_FILE: file }).auth.hsSecret).toBeUndefined();
    expect(refusal({ NODE_ENV: 'test', JWT_ALLOW_HS256: 'sure' })).toMatch(/JWT_ALLOW_HS256 must be true or false/);
  });

  it('pins the public key algorithm to the key type, and refuses keys it cannot use', () => {
    expect(loadConfig({ NODE_ENV: 'test', JWT_PUBLIC_KEY_FILE: pemFile('ec', 'ec') }).auth.publicKey?.algorithm).toBe(
      'ES256',
    );
    expect(refusal({ NODE_ENV: 'test', JWT_PUBLIC_KEY_FILE: pemFile('ed', 'ed25519') })).toMatch(
      /JWT_PUBLIC_KEY_FILE must hold an RSA key/,
    );
    expect(refusal({ NODE_ENV: 'test', JWT_PUBLIC_KEY_FILE: join(KEYS_DIR, 'missing.pem') })).toMatch(
      /JWT_PUBLIC_KEY_FILE must name a readable PEM public key/,
    );
  });

  it('wants https for a production key set, except on loopback', () => {
    expect(
      refusal(
        production({ JWT_SECRET: ownSecret(), JWT_JWKS_URL: 'http://idp.example.com/jwks', JWT_AUDIENCE: 'shop' }),
      ),
    ).toMatch(/JWT_JWKS_URL must use https/);
    expect(
      loadConfig(
        production({ JWT_SECRET: ownSecret(), JWT_JWKS_URL: 'http://127.0.0.1:8080/jwks', JWT_AUDIENCE: 'shop' }),
      ).auth.jwksUrl,
    ).toBe('http://127.0.0.1:8080/jwks');
  });

  it('keeps a development default secret outside production only', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).auth.hsSecret).toBeTruthy();
    expect(loadConfig({ NODE_ENV: 'test', JWT_ISSUER: 'https://idp', JWT_AUDIENCE: 'shop' }).auth).toMatchObject({
      issuer: 'https://idp',
      audience: 'shop',
    });
  });
});

describe('operations surface', () => {
  it('moves /metrics to port 9464 and turns /docs off in production; development serves both on PORT', () => {
    expect(loadConfig(production({ JWT_SECRET: ownSecret() })).ops).toEqual({
      metricsPort: 9464,
      metricsHost: '127.0.0.1',
      docsEnabled: false,
    });
    expect(loadConfig({ NODE_ENV: 'development' }).ops).toEqual({
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      docsEnabled: true,
    });
    expect(loadConfig({ NODE_ENV: 'test', METRICS_PORT: '9100', DOCS_ENABLED: 'false' }).ops).toEqual({
      metricsPort: 9100,
      metricsHost: '127.0.0.1',
      docsEnabled: false,
    });
    expect(loadConfig({ NODE_ENV: 'test', METRICS_HOST: '0.0.0.0' }).ops.metricsHost).toBe('0.0.0.0');
    expect(refusal({ NODE_ENV: 'test', METRICS_HOST: 'everywhere' })).toMatch(/METRICS_HOST must be an IP address/);
    expect(loadConfig(production({ JWT_SECRET: ownSecret(), DOCS_ENABLED: 'true' })).ops.docsEnabled).toBe(true);
    expect(refusal({ NODE_ENV: 'test', METRICS_PORT: 'nine' })).toMatch(/METRICS_PORT must be an integer/);
    expect(refusal({ NODE_ENV: 'test', METRICS_PORT: '3000' })).toMatch(/METRICS_PORT must differ from PORT/);
    expect(refusal(production({ JWT_SECRET: ownSecret(), PORT: '9464' }))).toMatch(
      /METRICS_PORT must differ from PORT/,
    );
  });

  it('opens CORS to no origin in production unless CORS_ORIGINS says so', () => {
    expect(loadConfig(production({ JWT_SECRET: ownSecret() })).edge.corsOrigins).toEqual([]);
  });
});
