import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../config/app-config.module';

/** The configured prefix every Redis key of the app starts with. */
@Injectable()
export class RedisKeyPrefix {
  readonly value: string;

  constructor(@Inject(ConfigService) config: TypedConfigService) {
    this.value = config.get('redis', { infer: true }).keyPrefix;
  }
}
