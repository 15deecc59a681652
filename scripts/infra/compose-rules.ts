/**
 * The rules of the Compose Specification a deployment depends on, checked on docker-compose.yml as
 * parsed (no Docker engine, hence no `docker compose config`, where CI runs). Each rule returns one
 * line per problem, naming the service.
 */
export type Service = Record<string, unknown>;
export interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  [key: string]: unknown;
}
export interface ComposeContext {
  /** Services that run once and exit (migrations, a cluster's set-up): no restart loop, no healthcheck. */
  oneShot: string[];
  /** Whether the image `build:` makes declares a HEALTHCHECK (the Dockerfile's). */
  builtImageHasHealthcheck: boolean;
  /** Whether a bind mount's host path exists (relative to the compose file). */
  hostPathExists(path: string): boolean;
}

// The Compose Specification's attribute names; anything else is a typo Compose would reject.
const TOP_LEVEL = new Set(['name', 'services', 'networks', 'volumes', 'secrets', 'configs', 'include']);
const SERVICE_KEYS = new Set(
  (
    'annotations attach blkio_config build cap_add cap_drop cgroup cgroup_parent command configs container_name cpu_count cpu_percent cpu_period ' +
    'cpu_quota cpu_rt_period cpu_rt_runtime cpu_shares cpus cpuset credential_spec depends_on deploy develop device_cgroup_rules devices dns ' +
    'dns_opt dns_search domainname entrypoint env_file environment expose extends external_links extra_hosts gpus group_add healthcheck hostname ' +
    'image init ipc isolation labels links logging mac_address mem_limit mem_reservation mem_swappiness memswap_limit network_mode networks ' +
    'oom_kill_disable oom_score_adj pid pids_limit platform ports post_start pre_stop privileged profiles pull_policy read_only restart runtime ' +
    'scale secrets security_opt shm_size stdin_open stop_grace_period stop_signal storage_opt sysctls tmpfs tty ulimits user userns_mode uts ' +
    'volumes volumes_from working_dir'
  ).split(' '),
);
const HEALTHCHECK_KEYS = new Set([
  'test',
  'interval',
  'timeout',
  'retries',
  'start_period',
  'start_interval',
  'disable',
]);
const DURATION = /^(\d+(\.\d+)?(us|ms|s|m|h))+$/;
const RESTARTS_ON_EXIT = ['always', 'unless-stopped'];
const CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const profilesOf = (service: Service): string[] =>
  Array.isArray(service.profiles) ? (service.profiles as string[]) : [];

/** The healthcheck a service runs: its own, else the built image's. */
export function hasHealthcheck(service: Service, context: ComposeContext): boolean {
  if (isObject(service.healthcheck)) return service.healthcheck.disable !== true;
  return service.build !== undefined && context.builtImageHasHealthcheck;
}

export function topLevelProblems(compose: ComposeFile): string[] {
  const unknown = Object.keys(compose).filter((key) => !TOP_LEVEL.has(key) && !key.startsWith('x-'));
  return [
    ...unknown.map((key) => `top level: unknown key ${key}`),
    ...(isObject(compose.services) ? [] : ['top level: no services']),
  ];
}

export function serviceProblems(name: string, service: Service, context: ComposeContext): string[] {
  const problems = Object.keys(service)
    .filter((key) => !SERVICE_KEYS.has(key))
    .map((key) => `${name}: unknown key ${key}`);
  if (service.image === undefined && service.build === undefined) problems.push(`${name}: neither image nor build`);
  const restart = service.restart;
  const oneShot = context.oneShot.includes(name);
  if (typeof restart !== 'string') problems.push(`${name}: no restart policy`);
  else if (!oneShot && !RESTARTS_ON_EXIT.includes(restart))
    problems.push(`${name}: restart ${restart} does not bring a long-running service back`);
  else if (oneShot && !/^(no|on-failure(:\d+)?)$/.test(restart))
    problems.push(`${name}: restart ${restart} would rerun a one-shot service forever`);
  if (!oneShot && !hasHealthcheck(service, context)) problems.push(`${name}: no healthcheck`);
  if (isObject(service.healthcheck)) problems.push(...healthcheckProblems(name, service.healthcheck, service));
  return problems;
}

function healthcheckProblems(name: string, healthcheck: Record<string, unknown>, service: Service): string[] {
  const problems = Object.keys(healthcheck)
    .filter((key) => !HEALTHCHECK_KEYS.has(key))
    .map((key) => `${name}: unknown healthcheck key ${key}`);
  if (healthcheck.disable === true) return problems;
  const test = healthcheck.test;
  if (!Array.isArray(test) || !['CMD', 'CMD-SHELL'].includes(test[0]) || test.length < 2)
    problems.push(`${name}: healthcheck test is not ["CMD", ...] or ["CMD-SHELL", ...]`);
  for (const key of ['interval', 'timeout', 'start_period', 'start_interval']) {
    if (healthcheck[key] !== undefined && !DURATION.test(String(healthcheck[key])))
      problems.push(`${name}: healthcheck ${key} ${String(healthcheck[key])} is no duration`);
  }
  // redis-cli against a node that asks for a password answers NOAUTH, which still exits 0: it must authenticate.
  const environment = isObject(service.environment) ? service.environment : {};
  if (Array.isArray(test) && test.join(' ').includes('redis-cli') && environment.REDISCLI_AUTH === undefined)
    problems.push(`${name}: redis-cli healthcheck without REDISCLI_AUTH`);
  return problems;
}

export function dependencyProblems(compose: ComposeFile, context: ComposeContext): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    const dependsOn = service.depends_on;
    const entries: [string, string, boolean][] = Array.isArray(dependsOn)
      ? dependsOn.map((target: string) => [target, 'service_started', true])
      : Object.entries(isObject(dependsOn) ? dependsOn : {}).map(([target, spec]) => [
          target,
          String(isObject(spec) ? spec.condition : spec),
          !(isObject(spec) && spec.required === false),
        ]);
    for (const [target, condition, required] of entries) {
      const other = compose.services[target];
      if (!other) {
        problems.push(`${name}: depends on ${target}, which is no service`);
        continue;
      }
      if (!CONDITIONS.has(condition)) problems.push(`${name}: unknown depends_on condition ${condition}`);
      if (condition === 'service_healthy' && !hasHealthcheck(other, context))
        problems.push(`${name}: waits for ${target} to be healthy, which has no healthcheck`);
      if (condition === 'service_completed_successfully' && !context.oneShot.includes(target))
        problems.push(`${name}: waits for ${target} to complete, which never does`);
      // A dependency outside the dependent's profiles would be missing whenever the dependent runs,
      // unless it says `required: false` (Compose 2.20+): waited for when started, else ignored.
      const targetProfiles = profilesOf(other);
      const ownProfiles = profilesOf(service);
      const unstarted =
        targetProfiles.length > 0 &&
        (ownProfiles.length === 0 || !ownProfiles.every((profile) => targetProfiles.includes(profile)));
      if (unstarted && required) problems.push(`${name}: depends on ${target}, which its profiles do not start`);
    }
  }
  return problems;
}

/** Named volumes are declared at the top level (and every declared one is used); bind mounts exist. */
export function volumeProblems(compose: ComposeFile, context: ComposeContext): string[] {
  const declared = new Set(Object.keys(compose.volumes ?? {}));
  const used = new Set<string>();
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    for (const entry of Array.isArray(service.volumes) ? service.volumes : []) {
      const source =
        typeof entry === 'string' ? entry.split(':')[0] : isObject(entry) ? String(entry.source ?? '') : '';
      if (/^[./~]/.test(source)) {
        if (!context.hostPathExists(source)) problems.push(`${name}: mounts ${source}, which does not exist`);
      } else if (source) {
        used.add(source);
        if (!declared.has(source)) problems.push(`${name}: uses volume ${source}, not declared under volumes`);
      }
    }
  }
  for (const volume of declared) if (!used.has(volume)) problems.push(`volumes: ${volume} is used by no service`);
  return problems;
}
