import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { AppLogger, createRootLogger } from './app-logger';
import { prettyLogs } from './pretty-logs';

/**
 * Structured JSON logs (pino): AppLogger carries Nest's messages; bootstrap installs the
 * per-request line (http/edge-hooks.ts) on Fastify with the same pino logger.
 */
@Global()
@Module({
  providers: [
    {
      provide: AppLogger,
      inject: [ConfigService],
      useFactory: (config: TypedConfigService) =>
        new AppLogger(
          createRootLogger(
            config.get('logLevel', { infer: true }),
            prettyLogs(process.env, config.get('nodeEnv', { infer: true }), process.stdout.isTTY === true),
          ),
        ),
    },
  ],
  exports: [AppLogger],
})
export class LoggingModule {}
