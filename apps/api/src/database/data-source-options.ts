import { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';
import { ENTITIES } from './entities';

/** One options factory for the app and the migration CLI, so both see the same schema. */
export function dataSourceOptions(url: string, poolSize = 10, statementTimeoutMs = 5000): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    poolSize,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 2000,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + 1000,
      idle_in_transaction_session_timeout: 10_000,
      application_name: 'flashsale-api',
    },
  };
}
