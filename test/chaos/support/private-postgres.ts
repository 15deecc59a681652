import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { postgresRunner, privateServerOptions } from '../../../scripts/infra/postgres-user';
import { requirePostgresBinDir } from '../../../scripts/infra/postgres-binaries';
import { freePort } from '../../support/free-port';
import { withPg } from '../../support/api-client';

/**
 * A Postgres server of our own (initdb into the ignored .infra/ folder, a free port) that a
 * scenario may stop, crash and start again without touching the machine's shared server. As root
 * the binaries run as a user PostgreSQL accepts (see postgres-user.ts).
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly dataDir: string,
    private readonly bin: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const bin = requirePostgresBinDir();
    mkdirSync(resolve('.infra'), { recursive: true });
    const dataDir = mkdtempSync(resolve('.infra/chaos-pg-'));
    const owner = postgresRunner(dataDir).dataOwner;
    if (owner) chownSync(dataDir, owner.uid, owner.gid);
    const server = new PrivatePostgres(await freePort(), dataDir, bin);
    await server.run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await server.startServer();
    return server;
  }

  /** A URL of one database on this server. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async createDatabase(name: string): Promise<string> {
    await withPg(this.url(), (pg) => pg.query(`CREATE DATABASE ${name}`));
    return this.url(name);
  }

  async startServer(): Promise<void> {
    const options = privateServerOptions(this.port, '-c fsync=off -c max_connections=100');
    await this.run('pg_ctl', ['-D', this.dataDir, '-l', `${this.dataDir}/server.log`, '-w', '-t', '60', '-o', options, 'start']);
  }

  /** `immediate` is a crash (recovery on the next start); `fast` a clean shutdown. */
  async stopServer(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.run('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  async destroy(): Promise<void> {
    try {
      await this.stopServer('immediate');
    } catch {
      // already stopped
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Asynchronous, so that the test's own clients keep running while Postgres stops or starts. */
  private async run(tool: string, args: string[]): Promise<void> {
    const [cmd, argv] = postgresRunner(this.dataDir).command(`${this.bin}/${tool}`, args);
    await execFileAsync(cmd, argv, { cwd: this.dataDir });
  }
}

const execFileAsync = promisify(execFile);
