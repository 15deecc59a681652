import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BlockList } from 'node:net';
import { load } from 'js-yaml';
import { trustProxy } from '../../apps/api/src/config/trust-proxy';
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

  it("trusts the balancer's fixed address and no other, within production's TRUST_PROXY rules", () => {
    const balancer = service('balancer') as { networks: { edge: { ipv4_address: string } } };
    const address = balancer.networks.edge.ipv4_address;
    const environment = service('api').environment as Record<string, string>;
    const trusted = /^\$\{TRUST_PROXY:-([^}]+)\}$/.exec(environment.TRUST_PROXY)?.[1];
    expect(trusted).toBe(address);
    expect(trustProxy(trusted, true)).toEqual([address]);
    expect(service('api').networks).toEqual(expect.arrayContaining(['edge']));
    // Docker hands out the edge network's addresses from ip_range only: never the balancer's.
    const [edge] = (shipped().networks as { edge: { ipam: { config: Array<Record<string, string>> } } }).edge.ipam
      .config;
    const handedOut = new BlockList();
    handedOut.addSubnet(edge.ip_range.split('/')[0], Number(edge.ip_range.split('/')[1]));
    const subnet = new BlockList();
    subnet.addSubnet(edge.subnet.split('/')[0], Number(edge.subnet.split('/')[1]));
    expect([subnet.check(address), handedOut.check(address)]).toEqual([true, false]);
  });

  it('starts monitoring only under its profile, so a plain `up` needs no ALERT_WEBHOOK_URL', () => {
    for (const name of ['prometheus', 'alertmanager', 'grafana'])
      expect(service(name).profiles).toEqual(['monitoring']);
  });
});

/**
 * The ha profile (deploy/patroni/): the pieces a failover depends on, checked across files: every
 * Patroni node is a server of the proxy, the proxy asks Patroni which node is primary, the
 * engine runs with a synchronous standby, and the API reaches the database through the proxy.
 */
describe('docker-compose.yml, the ha profile', () => {
  const patroni = () => yaml<{ bootstrap: { dcs: Record<string, unknown> } }>('deploy/patroni/patroni.yml');
  const haproxy = () => read('deploy/patroni/haproxy.cfg');
  const nodes = () => Object.keys(shipped().services).filter((name) => /^patroni-\d+$/.test(name));

  it('runs three Patroni nodes, three etcd members and the proxy, all under the ha profile only', () => {
    const names = [...nodes(), 'etcd-1', 'etcd-2', 'etcd-3', 'pg-proxy'];
    expect(nodes()).toHaveLength(3);
    for (const name of names) expect(service(name).profiles).toEqual(['ha']);
    for (const name of nodes()) expect(service(name).volumes).toEqual([`${name}-data:/var/lib/postgresql/patroni`]);
  });

  it("routes to the node Patroni's REST API reports as primary, one server line per node", () => {
    expect(haproxy()).toMatch(/^\s*option httpchk GET \/primary$/m);
    expect(haproxy()).toMatch(/^\s*http-check expect status 200$/m);
    const env = service('pg-proxy').environment as Record<string, string>;
    const servers = [...haproxy().matchAll(/^\s*server \S+ "\$\{(\w+)\}" check port "\$\{(\w+)\}"/gm)];
    const targets = servers.map(([, address, port]) => `${env[address].split(':')[0]} ${env[port]}`);
    expect(targets.sort()).toEqual(nodes().map((name) => `${name} 8008`));
    // The REST API address each node announces is the one the proxy checks.
    for (const name of nodes())
      expect((service(name).environment as Record<string, string>).PATRONI_RESTAPI_CONNECT_ADDRESS).toBe(
        `${name}:8008`,
      );
  });

  it('keeps a synchronous standby, and decides strictness explicitly', () => {
    const dcs = patroni().bootstrap.dcs;
    expect(dcs.synchronous_mode).toBe(true);
    expect(typeof dcs.synchronous_mode_strict).toBe('boolean');
    expect(dcs.synchronous_node_count).toBeGreaterThanOrEqual(1);
    // Patroni's rule: the HA loop and its retries fit within the leader key's lifetime.
    expect(Number(dcs.loop_wait) + 2 * Number(dcs.retry_timeout)).toBeLessThanOrEqual(Number(dcs.ttl));
  });

  it('points the API and the migrations at one DATABASE_URL that becomes the proxy with DATABASE_HOST=pg-proxy', () => {
    for (const name of ['api', 'migrate']) {
      const url = (service(name).environment as Record<string, string>).DATABASE_URL;
      expect(url).toMatch(/@\$\{DATABASE_HOST:-postgres\}:5432\/flashsale$/);
      expect((service(name).depends_on as Record<string, unknown>)['pg-proxy']).toEqual({
        condition: 'service_healthy',
        required: false,
      });
    }
    expect((service('pg-proxy').environment as Record<string, string>).PG_PROXY_BIND).toBe(':5432');
  });

  it('a dependency on a service of another profile passes only with required: false', () => {
    const compose = shipped();
    (compose.services.api.depends_on as Record<string, unknown>)['pg-proxy'] = { condition: 'service_healthy' };
    expect(problems(compose)).toContain('api: depends on pg-proxy, which its profiles do not start');
  });
});
