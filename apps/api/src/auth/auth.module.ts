import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtAuthGuard } from './jwt-auth.guard';
import { TokenVerifier } from './token-verifier';

@Global()
@Module({
  providers: [TokenVerifier, { provide: APP_GUARD, useClass: JwtAuthGuard }],
  exports: [TokenVerifier],
})
export class AuthModule {}
