import { ConfigError } from './env.schema';
import { loadPaymentsConfig } from './payments-config';

describe('loadPaymentsConfig', () => {
  it('serves the direct pay route by default in development and test only', () => {
    expect(loadPaymentsConfig({}, 'development').direct).toBe(true);
    expect(loadPaymentsConfig({}, 'test').direct).toBe(true);
    expect(loadPaymentsConfig({}, 'production').direct).toBe(false);
    expect(loadPaymentsConfig({ PAYMENTS_DIRECT: 'true' }, 'production').direct).toBe(true);
    expect(loadPaymentsConfig({ PAYMENTS_DIRECT: 'false' }, 'development').direct).toBe(false);
  });

  it('names PAYMENTS_DIRECT when it is not a boolean', () => {
    expect(() => loadPaymentsConfig({ PAYMENTS_DIRECT: 'yes' }, 'test')).toThrow(/PAYMENTS_DIRECT/);
  });

  it('leaves the webhook secret unset when empty, and wants 32 bytes of it in production', () => {
    expect(loadPaymentsConfig({ PAYMENT_WEBHOOK_SECRET: '' }, 'production').webhookSecret).toBeUndefined();
    expect(loadPaymentsConfig({ PAYMENT_WEBHOOK_SECRET: 'short' }, 'test').webhookSecret).toBe('short');
    expect(() => loadPaymentsConfig({ PAYMENT_WEBHOOK_SECRET: 'short' }, 'production')).toThrow(ConfigError);
    expect(() => loadPaymentsConfig({ PAYMENT_WEBHOOK_SECRET: 'short' }, 'production')).toThrow(
      /PAYMENT_WEBHOOK_SECRET/,
    );
    expect(loadPaymentsConfig({ PAYMENT_WEBHOOK_SECRET: 'x'.repeat(32) }, 'production').webhookSecret).toBe(
      'x'.repeat(32),
    );
  });

  it('budgets webhook requests per client address, 50 a second unless told, and names a bad value', () => {
    expect(loadPaymentsConfig({}, 'production').webhookRequestsPerSecondPerAddress).toBe(50);
    expect(
      loadPaymentsConfig({ PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS: '200' }, 'production')
        .webhookRequestsPerSecondPerAddress,
    ).toBe(200);
    expect(() => loadPaymentsConfig({ PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS: '0' }, 'test')).toThrow(
      /^Invalid configuration: PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS /,
    );
  });
});
