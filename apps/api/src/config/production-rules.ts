import { bool, ConfigError, Env, url } from './env.schema';

/** Development's database; production refuses it (and any postgres:postgres). */
export const DEFAULT_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/flashsale';

/** The variables `.env.example` gives a `<...>` placeholder (or could): one left in place stops start-up. */
const PLACEHOLDER = /<[^<>]+>/;

export function refusePlaceholders(env: Env): void {
  for (const [name, value] of Object.entries(env)) {
    if (
      value !== undefined &&
      /^(JWT|DATABASE|REDIS|REDLOCK|PAYMENT|WAITING_ROOM|CORS|TRUST)_/.test(name) &&
      PLACEHOLDER.test(value)
    ) {
      throw new ConfigError(
        `Invalid configuration: ${name} still holds the placeholder ${PLACEHOLDER.exec(value)![0]} from .env.example; set a real value`,
      );
    }
  }
}

/**
 * Switches that are fine on a laptop and dangerous on a server: production refuses them rather
 * than start quietly with them (each names what to do instead). The others live beside the
 * setting they judge: TRUST_PROXY (trust-proxy.ts), Redis without a password (redis-config.ts),
 * token keys and JWT_AUDIENCE (auth-config.ts).
 */
export function refuseUnsafeProduction(env: Env): void {
  const database = new URL(url(DEFAULT_DATABASE_URL, ['postgres:', 'postgresql:'])(env.DATABASE_URL, 'DATABASE_URL'));
  if (
    !env.DATABASE_URL ||
    (decodeURIComponent(database.username) === 'postgres' && decodeURIComponent(database.password) === 'postgres')
  ) {
    throw new ConfigError(
      'Invalid configuration: DATABASE_URL must be set, with credentials of your own (not postgres:postgres), when NODE_ENV=production',
    );
  }
  if (bool(false)(env.PAYMENTS_DIRECT, 'PAYMENTS_DIRECT')) {
    throw new ConfigError(
      'Invalid configuration: PAYMENTS_DIRECT=true lets buyers mark orders PAID without paying; refused when NODE_ENV=production (payments arrive by webhook)',
    );
  }
}
