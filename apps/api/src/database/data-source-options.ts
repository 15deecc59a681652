import { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';
import { GuardedPgClient } from './guarded-pg-client';

/**
 * One options factory for the app and the migration CLI, so both see the same schema. TypeORM is
 * the pool and the migration runner here, with no entities: every statement is SQL of ours
 * (database/statements.ts and the features' repositories), and the migrations own the schema.
 */
export function dataSourceOptions(url: string, poolSize = 10, statementTimeoutMs = 5000): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: [],
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    poolSize,
    extra: {
      // Every pooled connection keeps an error listener while it is checked out too.
      Client: GuardedPgClient,
      max: poolSize,
      connectionTimeoutMillis: 2000,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + 1000,
      idle_in_transaction_session_timeout: 10_000,
      application_name: 'flashsale-api',
    },
  };
}
