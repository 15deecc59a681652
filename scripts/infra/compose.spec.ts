import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { interpolationProblems } from './compose-interpolation';
import {
  ComposeContext,
  ComposeFile,
  dependencyProblems,
  serviceProblems,
  topLevelProblems,
  volumeProblems,
} from './compose-rules';

/**
 * docker-compose.yml validated without a Docker engine (none runs where CI does): parsed as YAML,
 * then held to the Compose Specification's rules a deployment depends on. No JSON schema of the
 * specification ships in node_modules, so compose-rules.ts checks those rules itself.
 */
const ROOT = join(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const yaml = <T>(file: string) => load(read(file)) as T;

const context: ComposeContext = {
  oneShot: ['migrate', 'cluster-init'],
  builtImageHasHealthcheck: /^HEALTHCHECK\s+(?!NONE)/m.test(read('Dockerfile')),
  hostPathExists: (path) => existsSync(join(ROOT, path)),
};

function problems(compose: ComposeFile): string[] {
  return [
    ...topLevelProblems(compose),
    ...Object.entries(compose.services).flatMap(([name, service]) => serviceProblems(name, service, context)),
    ...dependencyProblems(compose, context),
    ...volumeProblems(compose, context),
    ...interpolationProblems(compose),
  ];
}

const shipped = () => yaml<ComposeFile>('docker-compose.yml');
const service = (name: string) => shipped().services[name] as Record<string, unknown>;
const command = (name: string) => (service(name).command as string[]).join(' ');

describe('docker-compose.yml against the Compose Specification', () => {
  it('parses, with the services and the data volumes it is known to have (the reader works)', () => {
    const compose = shipped();
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining([
        'postgres',
        'redis',
        'migrate',
        'api',
        'redlock-1',
        'sentinel-1',
        'cluster-6',
        'prometheus',
        'alertmanager',
        'grafana',
      ]),
    );
    expect(Object.keys(compose.volumes ?? {})).toEqual(expect.arrayContaining(['postgres-data', 'redlock-1-data']));
    expect(context.builtImageHasHealthcheck).toBe(true);
  });

  it('breaks none of the rules: restart policies, healthchecks, dependencies, volumes, interpolation', () => {
    expect(problems(shipped())).toEqual([]);
  });

  describe('the rules catch what they are for', () => {
    const without = (edit: (compose: ComposeFile) => void) => {
      const compose = shipped();
      edit(compose);
      return problems(compose);
    };

    it('a long-running service with no restart policy, or one that never restarts', () => {
      expect(without((c) => delete c.services.api.restart)).toContain('api: no restart policy');
      expect(without((c) => (c.services.postgres.restart = 'no'))).toContain(
        'postgres: restart no does not bring a long-running service back',
      );
    });

    it('a service with no healthcheck, or a redis-cli one that cannot authenticate', () => {
      expect(without((c) => delete c.services['redlock-2'].healthcheck)).toContain('redlock-2: no healthcheck');
      expect(without((c) => delete (c.services.redis.environment as Record<string, string>).REDISCLI_AUTH)).toContain(
        'redis: redis-cli healthcheck without REDISCLI_AUTH',
      );
    });

    it('a misspelt key, an undeclared volume, a dependency on a service its profile does not start', () => {
      expect(without((c) => (c.services.grafana.restart_policy = 'always'))).toContain(
        'grafana: unknown key restart_policy',
      );
      expect(without((c) => delete c.volumes!['postgres-data'])).toContain(
        'postgres: uses volume postgres-data, not declared under volumes',
      );
      expect(
        without((c) => (c.services.api.depends_on = { alertmanager: { condition: 'service_started' } })),
      ).toContain('api: depends on alertmanager, which its profiles do not start');
    });

    it('a ${VAR} with no default that nothing requires', () => {
      const setLogLevel = (value: string) =>
        without((c) => ((c.services.api.environment as Record<string, string>).LOG_LEVEL = value));
      expect(setLogLevel('${LOG_LEVEL}')).toContain(
        'services.api.environment.LOG_LEVEL: ${LOG_LEVEL} has no default (:-) nor error (:?), and no service that always runs requires it',
      );
      expect(
        setLogLevel('$LOG_LEVEL').filter((problem) => problem.startsWith('services.api.environment.LOG_LEVEL:')),
      ).toHaveLength(1);
      expect(setLogLevel('${LOG_LEVEL:-info}')).not.toEqual(
        expect.arrayContaining([expect.stringContaining('LOG_LEVEL')]),
      );
    });
  });
});

describe('docker-compose.yml as a deployment', () => {
  it('keeps the database in a named volume', () => {
    expect(service('postgres').volumes).toContain('postgres-data:/var/lib/postgresql/data');
  });

  it('restarts the API when it exits 1 on a fatal error', () => {
    expect(['always', 'unless-stopped', 'on-failure']).toContain(service('api').restart);
  });

  it('runs the Redlock nodes as the lock README asks: AOF on, fsync on every write, each on a volume of its own', () => {
    expect(read('libs/distributed-lock/README.md')).toMatch(/Run Redlock nodes with AOF/);
    for (const n of [1, 2, 3]) {
      expect(command(`redlock-${n}`)).toMatch(/--appendonly yes --appendfsync always/);
      expect(service(`redlock-${n}`).volumes).toEqual([`redlock-${n}-data:/data`]);
    }
  });

  it('persists every Redis a restart policy brings back and others copy from (Sentinel and Cluster data nodes)', () => {
    for (const name of ['redis-primary', 'redis-replica', 'cluster-1', 'cluster-6'])
      expect(command(name)).toMatch(/--appendonly yes/);
  });

  it('starts monitoring only under its profile, so a plain `up` needs no ALERT_WEBHOOK_URL', () => {
    for (const name of ['prometheus', 'alertmanager', 'grafana'])
      expect(service(name).profiles).toEqual(['monitoring']);
  });
});
