import { Inject, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { TypedConfigService } from './app-config.module';

const PURCHASE_DEADLINE_MS = Symbol('PURCHASE_DEADLINE_MS');

/**
 * PURCHASE_DEADLINE_MS as the app's providers receive it: taken from the validated configuration
 * here alone and handed down (`@InjectPurchaseDeadlineMs()`), so no feature reads it on its own.
 */
export const purchaseDeadlineMsProvider: Provider = {
  provide: PURCHASE_DEADLINE_MS,
  inject: [ConfigService],
  useFactory: (config: TypedConfigService): number => config.get('orders', { infer: true }).purchaseDeadlineMs,
};

/** Injects PURCHASE_DEADLINE_MS (milliseconds from a purchase's arrival to its answer). */
export const InjectPurchaseDeadlineMs = (): ParameterDecorator => Inject(PURCHASE_DEADLINE_MS);
