import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

/**
 * Grafana's admin sign-in: unset, GF_SECURITY_ADMIN_PASSWORD falls back to admin/admin, so whoever
 * reaches the port first is admin. Compose interpolates every profile's services (a `:?` would stop
 * a plain `up` as well), so the grafana container itself refuses to start without a password.
 */
interface ComposeService {
  environment?: Record<string, string>;
  entrypoint?: string[];
  command?: string[];
}

const compose = load(readFileSync(join(__dirname, '../../docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};
const grafana = compose.services.grafana;

/**
 * The service's start command as its container's shell runs it (Compose's `$$` is one `$`), with
 * Grafana's own entrypoint (/run.sh, not on this machine) standing in as `echo started`.
 */
function start(password: string | undefined): { status: number | null; stdout: string; stderr: string } {
  const [script] = grafana.command ?? [''];
  const env = { PATH: process.env.PATH, ...(password === undefined ? {} : { GF_SECURITY_ADMIN_PASSWORD: password }) };
  const run = spawnSync('/bin/sh', ['-c', script.replace(/\$\$/g, '$').replace('exec /run.sh', 'exec echo started')], {
    env,
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("docker-compose.yml's grafana", () => {
  it('takes its admin password from GRAFANA_ADMIN_PASSWORD, with no default, and starts through the check', () => {
    expect(grafana.environment?.GF_SECURITY_ADMIN_PASSWORD).toBe('${GRAFANA_ADMIN_PASSWORD:-}');
    expect(grafana.entrypoint).toEqual(['/bin/sh', '-c']);
    expect(grafana.command?.[0]).toMatch(/exec \/run\.sh$/);
  });

  it.each([
    ['unset', undefined],
    ['empty', ''],
    ["Grafana's default", 'admin'],
  ])('refuses to start with the password %s, naming GRAFANA_ADMIN_PASSWORD', (_, password) => {
    const run = start(password);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('GRAFANA_ADMIN_PASSWORD');
    expect(run.stdout).not.toContain('started');
  });

  it('starts Grafana with a password of the operator', () => {
    expect(start('a-password-of-my-own')).toMatchObject({ status: 0, stdout: 'started\n' });
  });
});
