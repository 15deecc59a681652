import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { ClientAddressLimit } from './client-address-limit';
import { TokenVerifier } from './authentication';
import { JwtAuthGuard } from './jwt-auth.guard';

@Global()
@Module({
  providers: [TokenVerifier, ClientAddressLimit, RedisKeyPrefix, { provide: APP_GUARD, useClass: JwtAuthGuard }],
  exports: [TokenVerifier, ClientAddressLimit],
})
export class AuthModule {}
