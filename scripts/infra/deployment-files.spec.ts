import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/**
 * The services of docker-compose.yml, each with its own lines, read line by line (the project
 * has no YAML parser among its dependencies, and the file keeps to plain two-space nesting).
 */
function composeServices(): Map<string, string[]> {
  const services = new Map<string, string[]>();
  let inServices = false;
  let current: string[] | undefined;
  for (const line of read('docker-compose.yml').split('\n')) {
    if (/^\S/.test(line)) {
      inServices = line.startsWith('services:');
      current = undefined;
      continue;
    }
    const service = /^ {2}([a-z0-9-]+):/.exec(line);
    if (inServices && service) services.set(service[1], (current = [line]));
    else if (inServices && current) current.push(line);
  }
  return services;
}

/** The host ports a service publishes: `ports: [...]` inline or as a block list. */
function publishedPorts(lines: string[]): string[] {
  const ports: string[] = [];
  lines.forEach((line, i) => {
    const inline = /^\s+ports:\s*\[(.*)\]/.exec(line);
    if (inline) ports.push(...inline[1].split(',').map((p) => p.trim().replace(/^["']|["']$/g, '')));
    else if (/^\s+ports:\s*$/.test(line)) {
      for (let j = i + 1; j < lines.length && /^\s+-\s/.test(lines[j]); j++)
        ports.push(lines[j].replace(/^\s+-\s*/, '').replace(/^["']|["']$/g, ''));
    }
  });
  return ports.filter(Boolean);
}

describe('docker-compose.yml as shipped', () => {
  const services = composeServices();
  const text = (name: string) => (services.get(name) ?? []).join('\n');

  it('finds the services (the reader works)', () => {
    expect([...services.keys()]).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'api', 'migrate', 'prometheus', 'grafana']),
    );
    expect(publishedPorts(services.get('api')!)).toEqual(['3000']);
  });

  it('binds Postgres, Redis, Prometheus, Alertmanager and Grafana to the host loopback only', () => {
    for (const name of ['postgres', 'redis', 'prometheus', 'alertmanager', 'grafana']) {
      const ports = publishedPorts(services.get(name)!);
      expect(ports.length).toBeGreaterThan(0);
      for (const port of ports) expect(`${name} ${port}`).toMatch(/^\S+ 127\.0\.0\.1:\d+:\d+$/);
    }
  });

  it('publishes no other service but the balancer, and not the API operations port', () => {
    expect(publishedPorts(services.get('balancer')!)).toEqual(['8080:8080']);
    for (const [name, lines] of services) {
      if (['postgres', 'redis', 'prometheus', 'alertmanager', 'grafana', 'api', 'balancer'].includes(name)) continue;
      expect(`${name}: ${publishedPorts(lines).join(',')}`).toBe(`${name}: `);
    }
    expect(publishedPorts(services.get('api')!).some((port) => port.includes('9464'))).toBe(false);
  });

  it('requires JWT_SECRET and database and Redis passwords, with no default', () => {
    expect(text('api')).toMatch(/JWT_SECRET: \$\{JWT_SECRET:\?[^}]+\}/);
    expect(text('postgres')).toMatch(/POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?[^}]+\}/);
    expect(text('redis')).toMatch(/"--requirepass", "\$\{REDIS_PASSWORD:\?[^}]+\}"/);
    expect(text('api')).toMatch(/REDIS_URL: redis:\/\/:\$\{REDIS_PASSWORD\}@redis:6379/);
    expect(text('postgres')).toMatch(/APP_DB_PASSWORD: \$\{APP_DB_PASSWORD:\?[^}]+\}/);
    expect(read('docker-compose.yml')).not.toMatch(/\$\{[A-Z_]*(SECRET|PASSWORD)[A-Z_]*:-[^}]/);
  });

  it('connects the API and its migrations as the flashsale role, never as the superuser', () => {
    for (const name of ['api', 'migrate'])
      expect(text(name)).toMatch(
        /DATABASE_URL: postgres:\/\/flashsale:\$\{APP_DB_PASSWORD\}@\$\{DATABASE_HOST:-postgres\}:5432\/flashsale/,
      );
    expect(read('docker-compose.yml')).not.toMatch(/postgres:\/\/postgres:/);
    expect(text('postgres')).toMatch(/init-app-role\.sh:\/docker-entrypoint-initdb\.d\//);
  });

  it('asks for a password on every Redis node and Sentinel it starts', () => {
    const redisServices = [...services.entries()].filter(
      ([, lines]) =>
        lines.join('\n').includes('image: redis') || /^ {2}(redis|redlock|sentinel|cluster-\d)/.test(lines[0]),
    );
    expect(redisServices.length).toBeGreaterThan(10);
    const file = read('docker-compose.yml');
    // The anchors' commands (Sentinels, Cluster nodes) are shared by the services that use them.
    expect(file).toMatch(
      /x-cluster-node:[\s\S]*?"--requirepass", "\$\{REDIS_PASSWORD\}", "--masterauth", "\$\{REDIS_PASSWORD\}"/,
    );
    expect(file).toMatch(/x-sentinel:[\s\S]*?requirepass %s[\s\S]*?sentinel auth-pass mymaster %s/);
    for (const [name, lines] of redisServices) {
      const service = lines.join('\n');
      if (/<<: \*|: \*(sentinel|cluster-node)$/.test(lines[0]) || name === 'cluster-init') continue;
      expect(`${name}: ${/--requirepass", "\$\{REDIS_PASSWORD[:}]/.test(service)}`).toBe(`${name}: true`);
      if (service.includes('--replicaof') || name === 'redis-primary')
        expect(service).toContain('"--masterauth", "${REDIS_PASSWORD}"');
    }
    expect(text('api')).toMatch(/REDIS_PASSWORD: \$\{REDIS_PASSWORD\}/);
    expect(text('api')).toMatch(/REDIS_SENTINEL_PASSWORD: \$\{REDIS_PASSWORD\}/);
  });

  it('turns anonymous Grafana off and runs the API in production with its metrics port', () => {
    expect(text('grafana')).toMatch(/GF_AUTH_ANONYMOUS_ENABLED: "false"/);
    expect(text('api')).toMatch(/NODE_ENV: production/);
    expect(text('api')).toMatch(/METRICS_PORT: "9464"/);
  });

  it('migrates from the image before the API starts', () => {
    expect(text('migrate')).toMatch(/command: \["node", "dist\/apps\/api\/main\.js", "migrate"\]/);
    expect(text('api')).toMatch(/migrate: \{ condition: service_completed_successfully \}/);
  });

  it('has Prometheus scrape the API on its metrics port', () => {
    expect(read('monitoring/prometheus/prometheus.yml')).toMatch(/names: \[api\][\s\S]*port: 9464/);
  });
});

describe('the image', () => {
  it('keeps the host installs, git, local data, secrets and reports out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', '.git', '.infra', '.env', 'reports', 'dist']) expect(ignored).toContain(entry);
  });

  it('checks liveness on /health/live and runs the API in production', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^HEALTHCHECK [^\n]*\\\n[^\n]*\/health\/live/m);
    expect(dockerfile).toMatch(/^ENV NODE_ENV=production$/m);
  });

  it('builds and runs on Node 24, the LTS package.json names', () => {
    const stages = read('Dockerfile').match(/^FROM \S+/gm) ?? [];
    expect(stages.length).toBeGreaterThan(0);
    for (const stage of stages) expect(stage).toMatch(/^FROM node:24-/);
    expect(JSON.parse(read('package.json')).engines.node).toMatch(/24/);
  });
});

describe('the HAProxy configuration', () => {
  it('forwards the client address it saw, replacing any the client sent', () => {
    expect(read('deploy/haproxy/haproxy.cfg')).toMatch(/^\s+http-request set-header X-Forwarded-For %\[src\]$/m);
  });
});
