import { bool, ConfigError, Env, integer } from './env.schema';
import { echo } from './redact';

export interface PaymentsConfig {
  /** HMAC secret of the provider's webhook; without it POST /payments/webhook answers 404. */
  webhookSecret: string | undefined;
  /** POST /orders/:id/pay marks an order PAID with no provider (demo and tests); 404 when off. */
  direct: boolean;
  /** PAYMENT_CURRENCY, lowercase ISO 4217: a webhook event naming another currency is refused. */
  currency: string;
  /**
   * PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS: webhook requests one client address may send a
   * second, counted before the body is read or its signature computed.
   */
  webhookRequestsPerSecondPerAddress: number;
}

/** PAYMENT_WEBHOOK_SECRET and PAYMENTS_DIRECT; the direct path is on by default outside production. */
export function loadPaymentsConfig(env: Env, nodeEnv: 'development' | 'production' | 'test'): PaymentsConfig {
  const webhookSecret = env.PAYMENT_WEBHOOK_SECRET === '' ? undefined : env.PAYMENT_WEBHOOK_SECRET;
  // A short secret is guessable offline from one signed event; ask for what HMAC-SHA256 deserves.
  if (webhookSecret !== undefined && Buffer.byteLength(webhookSecret) < 32 && nodeEnv === 'production') {
    throw new ConfigError(
      'Invalid configuration: PAYMENT_WEBHOOK_SECRET must be at least 32 bytes when NODE_ENV=production',
    );
  }
  const currency = (env.PAYMENT_CURRENCY || 'usd').trim().toLowerCase();
  if (!/^[a-z]{3}$/.test(currency))
    throw new ConfigError(
      `Invalid configuration: PAYMENT_CURRENCY must be a three-letter ISO 4217 code (got ${echo(env.PAYMENT_CURRENCY)})`,
    );
  return {
    webhookSecret,
    direct: bool(nodeEnv !== 'production')(env.PAYMENTS_DIRECT, 'PAYMENTS_DIRECT'),
    currency,
    // A provider sends a few events a second from each of its addresses; ten times that leaves room
    // for a burst of redeliveries, and bounds what one address makes us hash to 50 x 64 KB a second.
    webhookRequestsPerSecondPerAddress: integer(
      50,
      1,
      1_000_000,
    )(env.PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS, 'PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS'),
  };
}
