import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import { TypedConfigService } from '../config/app-config.module';

/**
 * Structured JSON logs. Successful requests, and the refusals a hot sale answers by the thousand
 * (409 sold out / per-user limit, 429 rate limited: counted by purchases_total instead), log at
 * debug so the sale does not drown the log; other client errors at info, server errors at error.
 */
const ROUTINE_REFUSALS = new Set([409, 429]);
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: TypedConfigService) => ({
        pinoHttp: {
          level: config.get('logLevel', { infer: true }),
          customLogLevel: (_req, res, error) => {
            if (error || res.statusCode >= 500) return 'error';
            return res.statusCode >= 400 && !ROUTINE_REFUSALS.has(res.statusCode) ? 'info' : 'debug';
          },
          redact: ['req.headers.authorization'],
          serializers: { req: (req: { method: string; url: string; id: unknown }) => ({ id: req.id, method: req.method, url: req.url }) },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
