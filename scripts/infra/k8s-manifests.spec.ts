import 'reflect-metadata';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PATH_METADATA } from '@nestjs/common/constants';
import { loadAll } from 'js-yaml';
import { loadConfig } from '../../apps/api/src/config/app-config';
import { HealthController } from '../../apps/api/src/health/health.controller';
import { drainBoundsFor } from '../../apps/api/src/http/edge-hooks';
import { SHUTDOWN_BOUND_MS } from '../../apps/api/src/process-guards';
import { API_NODE_FLAGS } from './api-process';
import { unknownFields } from './k8s-fields';
import { applyOperation, containersOf, kustomizationsUnder, Manifest, renderKustomization } from './k8s-render';

const ROOT = join(__dirname, '..', '..');
const K8S = join(ROOT, 'deploy', 'k8s');
const SECRET_NAME = 'flash-sale-api-secrets';

/** Runs the bundled Kubernetes schemas (k8s-validate.mjs) over manifests; one entry per failure. */
function schemaFailures(manifests: Manifest[]): Array<{ kind: string; name: string; error: string }> {
  const output = execFileSync(process.execPath, [join(__dirname, 'k8s-validate.mjs')], {
    input: JSON.stringify(manifests),
    encoding: 'utf8',
  });
  return JSON.parse(output) as Array<{ kind: string; name: string; error: string }>;
}

const byKindAndName = (a: Manifest, b: Manifest) =>
  `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`);
const one = (manifests: Manifest[], kind: string, name?: string): Manifest => {
  const found = manifests.filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  expect(found.map((m) => `${m.kind}/${m.metadata.name}`)).toHaveLength(1);
  return found[0];
};
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  command: string[];
  ports: Array<{ name: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  livenessProbe: Probe;
  readinessProbe: Probe;
  lifecycle: { preStop: { exec: { command: string[] } } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
}
interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { terminationGracePeriodSeconds: number; containers: Container[] };
}

describe('deploy/k8s', () => {
  const kustomizations = kustomizationsUnder(K8S);
  const rendered = new Map(kustomizations.map((dir) => [relative(K8S, dir), renderKustomization(dir)]));
  const production = rendered.get('overlays/production')!;
  const deployment = one(production, 'Deployment', 'flash-sale-api');
  const template = (deployment.spec as { template: PodTemplate }).template;
  const api = template.spec.containers[0];

  it('has a base and a production overlay, each with its migration Job apart', () => {
    expect([...rendered.keys()]).toEqual([
      'base/app',
      'base/migrate',
      'overlays/production',
      'overlays/production/migrate',
    ]);
    expect(production.map((m) => m.kind).sort()).toEqual(
      [
        'ConfigMap',
        'Deployment',
        'HorizontalPodAutoscaler',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'Service',
        'Service',
        'ServiceAccount',
      ].sort(),
    );
    expect(rendered.get('overlays/production/migrate')!.map((m) => m.kind)).toEqual(['Job']);
  });

  it('renders every manifest valid against the Kubernetes schemas, with no field they do not define', () => {
    const all = [...rendered.values()].flat();
    expect(schemaFailures(all)).toEqual([]);
    expect(unknownFields(all)).toEqual([]);
  });

  it('has validators that catch a wrong type, a missing field, an unknown kind and a misspelt field', () => {
    const broken = clone(deployment);
    const spec = broken.spec as { template: PodTemplate; selector?: unknown };
    (spec.template.spec.containers[0].ports[0] as { containerPort: unknown }).containerPort = 'http';
    delete spec.selector;
    const unknownKind = { ...clone(deployment), kind: 'Deploymint' };
    const failures = schemaFailures([broken, unknownKind]);
    expect(failures.map((f) => f.error).join('\n')).toMatch(/containerPort must be integer/);
    expect(failures.map((f) => f.error).join('\n')).toMatch(/required property selector/);
    expect(failures.map((f) => f.error).join('\n')).toMatch(/no Kubernetes schema for apps\/v1 Deploymint/);

    const misspelt = clone(deployment);
    const container = (misspelt.spec as { template: PodTemplate }).template.spec.containers[0] as unknown as Record<
      string,
      unknown
    >;
    container.livenesProbe = container.livenessProbe;
    expect(unknownFields([misspelt]).join('\n')).toMatch(
      /Deployment\/flash-sale-api: .*livenesProbe.* does not exist in type 'IContainer'/,
    );
  });

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  (kubectl ? it : it.skip)('renders as `kubectl kustomize` does (where a kubectl is installed)', () => {
    for (const [name, manifests] of rendered) {
      const theirs = loadAll(
        execFileSync('kubectl', ['kustomize', join(K8S, name)], { encoding: 'utf8' }),
      ) as Manifest[];
      expect({ name, manifests: [...manifests].sort(byKindAndName) }).toEqual({
        name,
        manifests: theirs.sort(byKindAndName),
      });
    }
  });
  if (!kubectl) console.log('deploy/k8s: no kubectl on PATH, the comparison with `kubectl kustomize` is skipped');

  it('applies JSON patches as RFC 6902 does, refusing a replace of a missing path', () => {
    const doc = { data: { A: '1' }, list: [1, 2] };
    applyOperation(doc, { op: 'replace', path: '/data/A', value: '2' }, 't');
    applyOperation(doc, { op: 'add', path: '/data/B~1C', value: '3' }, 't');
    applyOperation(doc, { op: 'add', path: '/list/-', value: 3 }, 't');
    applyOperation(doc, { op: 'remove', path: '/list/0' }, 't');
    expect(doc).toEqual({ data: { A: '2', 'B/C': '3' }, list: [2, 3] });
    expect(() => applyOperation(doc, { op: 'replace', path: '/data/Z', value: 1 }, 't')).toThrow(/does not exist/);
    expect(() => applyOperation(doc, { op: 'move', path: '/data/A' }, 't')).toThrow(/not rendered/);
  });

  /** The environment a production pod gets: the ConfigMap, its literal env, each secret a fresh value. */
  function podEnvironment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const source of api.envFrom ?? []) {
      expect(source.secretRef).toBeUndefined();
      const configMap = one(production, 'ConfigMap', source.configMapRef!.name);
      Object.assign(env, configMap.data as Record<string, string>);
    }
    const secretValues: Record<string, string> = {
      DATABASE_URL: `postgres://flashsale:${randomBytes(16).toString('hex')}@postgres:5432/flashsale`,
      REDIS_URL: `redis://:${randomBytes(16).toString('hex')}@redis:6379`,
    };
    for (const variable of api.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      env[variable.name] = ref ? (secretValues[ref.key] ?? randomBytes(32).toString('hex')) : variable.value!;
    }
    return env;
  }

  it('starts under production rules with the Deployment environment (TRUST_PROXY, Redis auth, audience)', () => {
    const env = podEnvironment();
    expect(env.NODE_ENV).toBe('production');
    const config = loadConfig(env);
    expect(config.nodeEnv).toBe('production');
    expect(config.database.migrate).toBe(false);
    expect(config.edge.trustProxy).not.toBe(false);
    const ports = Object.fromEntries(api.ports.map((p) => [p.name, p.containerPort]));
    expect(ports).toEqual({ http: config.port, metrics: config.ops.metricsPort });
    // The metrics listener must be reachable from Prometheus in another pod, not loopback only.
    expect(config.ops.metricsHost).toBe('0.0.0.0');
  });

  it('probes routes the app serves on its public port: liveness /health/live, readiness /health', () => {
    const base = `/${Reflect.getMetadata(PATH_METADATA, HealthController) as string}`;
    const routes = Object.getOwnPropertyNames(HealthController.prototype)
      .map((method) => Reflect.getMetadata(PATH_METADATA, HealthController.prototype[method as 'live']) as string)
      .filter((path) => path !== undefined)
      .map((path) => (path === '/' ? base : `${base}/${path}`));
    expect(api.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(api.readinessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(routes).toEqual(expect.arrayContaining([api.livenessProbe.httpGet.path, api.readinessProbe.httpGet.path]));
  });

  it('gives a terminating pod at least the preStop wait plus the drain of its longest request and the close', () => {
    const config = loadConfig(podEnvironment());
    const [sleep, seconds] = api.lifecycle.preStop.exec.command;
    expect(sleep).toBe('sleep');
    const longestRequestMs = Math.max(
      config.edge.requestBodyTimeoutMs,
      config.orders.purchaseDeadlineMs,
      drainBoundsFor(config.http.bodyLimitBytes).ms,
    );
    const neededS = Number(seconds) + (longestRequestMs + SHUTDOWN_BOUND_MS) / 1000;
    expect(Number(seconds)).toBeGreaterThanOrEqual(3);
    expect(template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(neededS);
  });

  it('runs the Node flags of `npm start` and the Dockerfile, and leaves the replica count to the HPA', () => {
    expect(api.command).toEqual(['node', ...API_NODE_FLAGS, 'dist/apps/api/main.js']);
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))![1];
    expect(JSON.parse(cmd)).toEqual(api.command);
    expect(readFileSync(join(ROOT, 'scripts', 'start.sh'), 'utf8')).toContain(
      `node ${API_NODE_FLAGS.join(' ')} dist/apps/api/main.js`,
    );
    expect((deployment.spec as { replicas?: number }).replicas).toBeUndefined();
    const hpa = one(production, 'HorizontalPodAutoscaler').spec as {
      scaleTargetRef: { kind: string; name: string };
      minReplicas: number;
    };
    expect(hpa.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    const pdb = one(production, 'PodDisruptionBudget').spec as { maxUnavailable: number };
    expect(hpa.minReplicas).toBeGreaterThan(pdb.maxUnavailable);
  });

  it('sizes memory above the peak RSS BENCHMARKS measured for one instance', () => {
    const benchmarks = readFileSync(join(ROOT, 'docs', 'BENCHMARKS.md'), 'utf8');
    const peaks = [...benchmarks.matchAll(/spike peak RSS of the API, [^|]+\|[^|]+\| (\d+) MB/g)].map((m) =>
      Number(m[1]),
    );
    expect(peaks.length).toBeGreaterThan(0);
    const mebibytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)![1]);
    expect(mebibytes(api.resources.limits.memory) * 1.048576).toBeGreaterThanOrEqual(Math.max(...peaks));
    expect(mebibytes(api.resources.requests.memory) * 1.048576).toBeGreaterThanOrEqual(Math.min(...peaks));
  });

  it('keeps METRICS_PORT off the public Service and serves it on a Service of its own', () => {
    const metricsPort = api.ports.find((p) => p.name === 'metrics')!;
    const publicService = one(production, 'Service', 'flash-sale-api').spec as {
      type: string;
      ports: Array<{ port: number; targetPort: string | number }>;
    };
    for (const port of publicService.ports) {
      expect(port.port).not.toBe(metricsPort.containerPort);
      expect([metricsPort.name, metricsPort.containerPort]).not.toContain(port.targetPort);
    }
    expect(publicService.ports.map((p) => p.targetPort)).toEqual(['http']);
    const metricsService = one(production, 'Service', 'flash-sale-api-metrics').spec as {
      clusterIP: string;
      ports: Array<{ targetPort: string }>;
    };
    expect(metricsService.ports.map((p) => p.targetPort)).toEqual(['metrics']);
    expect(metricsService.clusterIP).toBe('None');
  });

  it('selects the pods from every Service, the PDB and the NetworkPolicy, which admits each port from one place', () => {
    const labels = template.metadata.labels;
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    for (const service of production.filter((m) => m.kind === 'Service'))
      expect(selects((service.spec as { selector: Record<string, string> }).selector)).toBe(true);
    for (const kind of ['PodDisruptionBudget', 'NetworkPolicy']) {
      const spec = one(production, kind).spec as {
        selector?: { matchLabels: object };
        podSelector?: { matchLabels: object };
      };
      expect(selects((spec.selector ?? spec.podSelector)!.matchLabels as Record<string, string>)).toBe(true);
    }
    const policy = one(production, 'NetworkPolicy').spec as {
      ingress: Array<{
        from: Array<{ namespaceSelector: { matchLabels: Record<string, string> } }>;
        ports: Array<{ port: string }>;
      }>;
    };
    const admitted = policy.ingress.map((rule) => ({
      ports: rule.ports.map((p) => p.port),
      from: rule.from.map((peer) => peer.namespaceSelector.matchLabels['kubernetes.io/metadata.name']),
    }));
    expect(admitted).toEqual([
      { ports: ['http'], from: ['ingress-nginx'] },
      { ports: ['metrics'], from: ['monitoring'] },
    ]);
  });

  it('references secrets by name only: no Secret object, no secret written as a value', () => {
    const secretName = /SECRET|PASSWORD|^DATABASE_URL$|^REDIS_URL$|^REDLOCK_URLS$/;
    for (const [name, manifests] of rendered) {
      expect({ name, kinds: manifests.map((m) => m.kind) }).not.toEqual({
        name,
        kinds: expect.arrayContaining(['Secret']),
      });
      for (const manifest of manifests) {
        for (const key of Object.keys((manifest.data as object) ?? {}))
          expect(`${name}: ${key}`).not.toMatch(secretName);
        for (const container of containersOf(manifest) as unknown as Container[]) {
          for (const variable of container.env ?? []) {
            if (secretName.test(variable.name)) {
              expect({ variable: variable.name, value: variable.value }).toEqual({
                variable: variable.name,
                value: undefined,
              });
              expect(variable.valueFrom?.secretKeyRef).toEqual({ name: SECRET_NAME, key: variable.name });
            }
          }
        }
      }
    }
  });

  it('migrates before a rollout from the same image, and the pods never migrate', () => {
    const job = one(rendered.get('overlays/production/migrate')!, 'Job');
    const [migrate] = containersOf(job) as unknown as Container[];
    expect(migrate.command).toEqual(['node', 'dist/apps/api/main.js', 'migrate']);
    expect(readFileSync(join(ROOT, 'apps', 'api', 'src', 'main.ts'), 'utf8')).toContain(
      "process.argv[2] === 'migrate'",
    );
    expect(migrate.image).toBe(api.image);
    expect(migrate.image).not.toBe('flash-sale-api');
    expect(job.metadata.namespace).toBe(deployment.metadata.namespace);
    expect(podEnvironment().DB_MIGRATE).toBe('false');
  });
});
