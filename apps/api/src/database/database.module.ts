import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TypedConfigService } from '../config/app-config.module';
import { dataSourceOptions } from './data-source-options';
import { runMigrationsExclusively } from './run-migrations';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: TypedConfigService) => {
        const { url, poolSize, statementTimeoutMs } = config.get('database', { infer: true });
        const migrate = config.get('database', { infer: true }).migrate;
        // migrationsRun is read by dataSourceFactory below, which runs them under an advisory lock.
        return {
          ...dataSourceOptions(url, poolSize, statementTimeoutMs),
          migrationsRun: migrate,
          retryAttempts: 10,
          retryDelay: 1000,
        };
      },
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource({ ...options!, migrationsRun: false }).initialize();
        if (options!.migrationsRun) await runMigrationsExclusively(dataSource);
        return dataSource;
      },
    }),
  ],
})
export class DatabaseModule {}
