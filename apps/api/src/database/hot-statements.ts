import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { TypedConfigService } from '../config/app-config.module';

/**
 * Runs the hottest statements straight on TypeORM's pg pool, skipping its per-query runner, and
 * as named prepared statements so each connection parses and plans them once. Named statements
 * live in a server session, which a transaction-mode pooler (PgBouncer < 1.21) does not keep:
 * DB_PREPARED_STATEMENTS=false turns them off there.
 */
@Injectable()
export class HotStatements {
  private readonly prepared: boolean;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.prepared = config.get('database', { infer: true }).preparedStatements;
  }

  async run<T extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.db.driver as unknown as { master: Pool }).master;
    const result = await pool.query<T>(this.prepared ? { name, text, values } : { text, values });
    return result.rows;
  }
}
