import { findPostgresBinDir, MachineView, postgresMissingMessage } from './postgres-binaries';

/** A machine with a server installed in each of `serverDirs` (all three tools executable there). */
function machine(options: {
  pgConfig?: string;
  path?: string[];
  serverDirs?: string[];
  executables?: string[];
}): MachineView {
  const executables = new Set(options.executables ?? []);
  for (const dir of options.serverDirs ?? [])
    for (const tool of ['initdb', 'pg_ctl', 'postgres']) executables.add(`${dir}/${tool}`);
  const debianMajors = [...executables]
    .map((path) => /^\/usr\/lib\/postgresql\/([^/]+)\/bin\//.exec(path)?.[1])
    .filter((major): major is string => major !== undefined);
  return {
    pgConfigBindir: () => options.pgConfig,
    pathDirs: options.path ?? ['/usr/local/bin', '/usr/bin', '/bin'],
    isExecutable: (path) => executables.has(path),
    list: (dir) => (dir === '/usr/lib/postgresql' ? [...new Set(debianMajors)] : []),
  };
}

describe('finding the PostgreSQL server binaries', () => {
  it("takes pg_config's bindir first when the server is there", () => {
    const found = findPostgresBinDir(
      machine({
        pgConfig: '/opt/homebrew/opt/postgresql@17/bin',
        serverDirs: ['/opt/homebrew/opt/postgresql@17/bin', '/usr/lib/postgresql/16/bin'],
        path: ['/opt/homebrew/opt/postgresql@17/bin'],
      }),
    );
    expect(found).toBe('/opt/homebrew/opt/postgresql@17/bin');
  });

  it("passes over a pg_config whose bindir has client tools only (Debian's libpq-dev names /usr/bin)", () => {
    const found = findPostgresBinDir(
      machine({
        pgConfig: '/usr/bin',
        executables: ['/usr/bin/pg_dump', '/usr/bin/psql'],
        serverDirs: ['/usr/lib/postgresql/15/bin'],
      }),
    );
    expect(found).toBe('/usr/lib/postgresql/15/bin');
  });

  it('takes the first PATH folder that has initdb, pg_ctl and postgres, as a keg-only Homebrew install put on PATH', () => {
    const found = findPostgresBinDir(
      machine({
        path: ['/Users/a/bin', '/opt/homebrew/opt/postgresql@17/bin', '/usr/local/pgsql/bin'],
        serverDirs: ['/opt/homebrew/opt/postgresql@17/bin', '/usr/local/pgsql/bin'],
      }),
    );
    expect(found).toBe('/opt/homebrew/opt/postgresql@17/bin');
  });

  it("prefers PATH to Debian's folder", () => {
    const found = findPostgresBinDir(
      machine({ path: ['/usr/local/pgsql/bin'], serverDirs: ['/usr/local/pgsql/bin', '/usr/lib/postgresql/16/bin'] }),
    );
    expect(found).toBe('/usr/local/pgsql/bin');
  });

  it('skips a PATH folder with initdb but no pg_ctl or postgres beside it', () => {
    const found = findPostgresBinDir(
      machine({
        path: ['/usr/local/bin'],
        executables: ['/usr/local/bin/initdb'],
        serverDirs: ['/usr/lib/postgresql/15/bin'],
      }),
    );
    expect(found).toBe('/usr/lib/postgresql/15/bin');
  });

  it("falls back to Debian's newest major, compared as numbers (16 before 9.6)", () => {
    const found = findPostgresBinDir(
      machine({
        serverDirs: ['/usr/lib/postgresql/9.6/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'],
      }),
    );
    expect(found).toBe('/usr/lib/postgresql/16/bin');
  });

  it("skips a Debian major whose server package is gone (only its client's folder left)", () => {
    const found = findPostgresBinDir(
      machine({ executables: ['/usr/lib/postgresql/17/bin/psql'], serverDirs: ['/usr/lib/postgresql/15/bin'] }),
    );
    expect(found).toBe('/usr/lib/postgresql/15/bin');
  });

  it('finds nothing on a machine without a server, and the error names where it looked and what to install', () => {
    expect(findPostgresBinDir(machine({ pgConfig: '/usr/bin', executables: ['/usr/bin/psql'] }))).toBeUndefined();
    const message = postgresMissingMessage();
    for (const part of [
      'pg_config --bindir',
      'PATH',
      '/usr/lib/postgresql/*/bin',
      'apt-get install postgresql',
      'brew install postgresql@17',
      'DATABASE_URL',
    ]) {
      expect(message).toContain(part);
    }
  });
});
