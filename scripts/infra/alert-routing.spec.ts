import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

/**
 * The alert rules reach someone: Prometheus (monitoring/prometheus) sends them to the compose
 * service `alertmanager`, whose config (monitoring/alertmanager) routes every alert to a receiver
 * whose webhook URL is the file compose writes from ALERT_WEBHOOK_URL.
 */
const ROOT = join(__dirname, '../..');
const yaml = <T>(file: string) => load(readFileSync(join(ROOT, file), 'utf8')) as T;

interface Route {
  receiver?: string;
  routes?: Route[];
}
interface AlertmanagerConfig {
  route: Route;
  receivers: { name: string; webhook_configs?: { url?: string; url_file?: string }[] }[];
}
interface ComposeService {
  profiles?: string[];
  environment?: Record<string, string>;
  command?: string[];
  volumes?: string[];
}

const compose = yaml<{ services: Record<string, ComposeService> }>('docker-compose.yml');
const prometheus = yaml<{ alerting?: { alertmanagers?: { static_configs?: { targets?: string[] }[] }[] } }>(
  'monitoring/prometheus/prometheus.yml',
);
const alertmanager = yaml<AlertmanagerConfig>('monitoring/alertmanager/alertmanager.yml');
const amService = compose.services.alertmanager;
const amCommand = (amService?.command ?? []).join(' ');

const receiversOf = (route: Route): string[] => [
  ...(route.receiver ? [route.receiver] : []),
  ...(route.routes ?? []).flatMap(receiversOf),
];

describe('where the alerts go', () => {
  it('Prometheus sends its alerts to the compose service alertmanager, started with it', () => {
    const targets = (prometheus.alerting?.alertmanagers ?? []).flatMap((am) =>
      (am.static_configs ?? []).flatMap((c) => c.targets ?? []),
    );
    expect(targets).toContain('alertmanager:9093');
    expect(amService?.profiles).toEqual(compose.services.prometheus.profiles);
  });

  it('Alertmanager runs the config of monitoring/alertmanager', () => {
    expect(amService?.volumes).toContain('./monitoring/alertmanager:/etc/alertmanager:ro');
    expect(amCommand).toContain('--config.file=/etc/alertmanager/alertmanager.yml');
  });

  it('routes every alert to a receiver that exists, the root route included', () => {
    const names = alertmanager.receivers.map((receiver) => receiver.name);
    expect(alertmanager.route.receiver).toBeDefined();
    for (const receiver of receiversOf(alertmanager.route)) expect(names).toContain(receiver);
  });

  it("sends to the operator's ALERT_WEBHOOK_URL: the file the config reads is the one compose writes it to", () => {
    const [receiver] = alertmanager.receivers.filter((r) => r.name === alertmanager.route.receiver);
    const urlFile = receiver.webhook_configs?.[0]?.url_file;
    expect(urlFile).toMatch(/^\/run\//);
    expect(receiver.webhook_configs?.[0]?.url).toBeUndefined();
    expect(amCommand).toContain(`printf '%s' "$$ALERT_WEBHOOK_URL" > ${urlFile}`);
    expect(amService?.environment?.ALERT_WEBHOOK_URL).toBe('${ALERT_WEBHOOK_URL:-}');
  });

  it('stops Alertmanager, saying why, rather than run it with nowhere to send alerts', () => {
    expect(amCommand).toMatch(
      /if \[ -z "\$\$ALERT_WEBHOOK_URL" \]; then echo '[^']*ALERT_WEBHOOK_URL[^']*' >&2; exit 1; fi/,
    );
  });
});
