import { isIP } from 'node:net';
import { bool, ConfigError, Env, integer } from './env.schema';
import { echo } from './redact';

type NodeEnv = 'development' | 'production' | 'test';

/** Where the operations surface lives: the metrics/details listener and the Swagger UI. */
export interface OpsConfig {
  /** Port of the internal listener serving /metrics and /health/details; undefined: served on PORT. */
  metricsPort: number | undefined;
  /** Address that listener binds: loopback unless told (a sidecar or the compose network needs 0.0.0.0). */
  metricsHost: string;
  /** Serve the Swagger UI at /docs. */
  docsEnabled: boolean;
}

/** Production keeps both off the public port by default; development and test show them there. */
export function loadOpsConfig(env: Env, nodeEnv: NodeEnv, publicPort: number): OpsConfig {
  const production = nodeEnv === 'production';
  const rawPort = env.METRICS_PORT === '' ? undefined : env.METRICS_PORT;
  const metricsPort =
    rawPort === undefined ? (production ? 9464 : undefined) : integer(0, 0, 65535)(rawPort, 'METRICS_PORT');
  // The same port twice would fail at listen(), after the public port already answers.
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === publicPort) {
    throw new ConfigError(`Invalid configuration: METRICS_PORT must differ from PORT (both ${publicPort})`);
  }
  return {
    metricsPort,
    metricsHost: metricsHost(env.METRICS_HOST),
    docsEnabled: bool(!production)(env.DOCS_ENABLED, 'DOCS_ENABLED'),
  };
}

function metricsHost(raw: string | undefined): string {
  const value = raw?.trim() || '127.0.0.1';
  if (isIP(value) === 0)
    throw new ConfigError(
      `Invalid configuration: METRICS_HOST must be an IP address, e.g. 127.0.0.1 or 0.0.0.0 (got ${echo(raw)})`,
    );
  return value;
}
