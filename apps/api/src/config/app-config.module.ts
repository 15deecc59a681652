import { Global, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { AppConfig, loadConfig } from './app-config';

/** The validated configuration, typed; read with `config.get('lock', { infer: true })`. */
export type TypedConfigService = ConfigService<AppConfig, true>;

@Global()
@Module({
  imports: [ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: false, cache: true, load: [() => ({ ...loadConfig() })] })],
})
export class AppConfigModule {}
