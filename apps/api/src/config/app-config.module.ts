import { Global, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { AppConfig, loadConfig } from './app-config';
import { purchaseDeadlineMsProvider } from './purchase-deadline';

/** The validated configuration, typed; read with `config.get('lock', { infer: true })`. */
export type TypedConfigService = ConfigService<AppConfig, true>;

// .env is read by main.ts alone (config/env-file.ts): Nest's own reading would let the file set NODE_ENV.
@Global()
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, cache: true, load: [() => ({ ...loadConfig() })] }),
  ],
  providers: [purchaseDeadlineMsProvider],
  exports: [purchaseDeadlineMsProvider],
})
export class AppConfigModule {}
