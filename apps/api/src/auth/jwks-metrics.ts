import { Counter, Gauge, register } from 'prom-client';

const READS = 'auth_jwks_reads_total';
const LAST_READ = 'auth_jwks_last_read_timestamp_seconds';
const KEYS = 'auth_jwks_keys';

/** Reads of the identity provider's key set (JWT_JWKS_URL), by result: `ok` or `failed`. */
export const jwksReads: Counter<'result'> =
  (register.getSingleMetric(READS) as Counter<'result'> | undefined) ??
  new Counter({
    name: READS,
    help: "Reads of the identity provider's key set (JWT_JWKS_URL), by result (ok, failed)",
    labelNames: ['result'],
  });

/** When the key set in use was read: its age is `time() - this`, bounded by 3 x JWT_JWKS_REFRESH_S. */
export const jwksLastRead: Gauge =
  (register.getSingleMetric(LAST_READ) as Gauge | undefined) ??
  new Gauge({
    name: LAST_READ,
    help: 'When the key set in use was last read successfully (Unix seconds)',
  });

/** Keys tokens may be verified with: 0 when the provider has been unreadable past the stale bound. */
export const jwksKeys: Gauge =
  (register.getSingleMetric(KEYS) as Gauge | undefined) ??
  new Gauge({
    name: KEYS,
    help: "Signing keys of the identity provider's key set in use (0 once it is older than 3 x JWT_JWKS_REFRESH_S)",
  });
