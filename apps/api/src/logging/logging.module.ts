import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import { TypedConfigService } from '../config/app-config.module';

/** Structured JSON logs; successful requests log at debug so a hot sale does not drown the log. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: TypedConfigService) => ({
        pinoHttp: {
          level: config.get('logLevel', { infer: true }),
          customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug'),
          redact: ['req.headers.authorization'],
          serializers: { req: (req: { method: string; url: string; id: unknown }) => ({ id: req.id, method: req.method, url: req.url }) },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
