import { Logger } from '@nestjs/common';
import { Client } from 'pg';

const log = new Logger('PostgresClient');

/**
 * node-postgres' client, with an `error` listener for its whole life. The pool listens for errors
 * of idle clients only: a client that is checked out (inside a transaction, or held between two
 * statements) and whose session ends (pg_terminate_backend, a restart, a dropped socket) emits
 * `error` with nobody listening, and Node turns that into an uncaught exception that ends the
 * process. Here it is logged; the client is no longer queryable, so its holder's next statement
 * fails like any lost connection, and the pool drops it when it is released.
 */
export class GuardedPgClient extends Client {
  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    this.on('error', (error: Error) => log.warn(`a pooled connection failed while in use: ${error.message}`));
  }
}
