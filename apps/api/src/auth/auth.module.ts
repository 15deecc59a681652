import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlingModule } from '../common/throttling/throttling.module';
import { ClientAddressLimit } from './client-address-limit';
import { TokenVerifier } from './authentication';
import { JwtAuthGuard } from './jwt-auth.guard';

@Global()
@Module({
  imports: [ThrottlingModule],
  providers: [TokenVerifier, ClientAddressLimit, { provide: APP_GUARD, useClass: JwtAuthGuard }],
  exports: [TokenVerifier, ClientAddressLimit],
})
export class AuthModule {}
