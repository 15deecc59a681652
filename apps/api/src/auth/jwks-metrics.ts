import { Counter, Gauge } from 'prom-client';
import { registeredCounter, registeredGauge } from '../metrics/registered-metrics';

const READS = 'auth_jwks_reads_total';
const LAST_READ = 'auth_jwks_last_read_timestamp_seconds';
const KEYS = 'auth_jwks_keys';

/** Reads of the identity provider's key set (JWT_JWKS_URL), by result: `ok` or `failed`. */
export const jwksReads: Counter<'result'> = registeredCounter(
  READS,
  "Reads of the identity provider's key set (JWT_JWKS_URL), by result (ok, failed)",
  ['result'],
);

/** When the key set in use was read: its age is `time() - this`, bounded by 3 x JWT_JWKS_REFRESH_S. */
export const jwksLastRead: Gauge = registeredGauge(
  LAST_READ,
  'When the key set in use was last read successfully (Unix seconds)',
);

/** Keys tokens may be verified with: 0 when the provider has been unreadable past the stale bound. */
export const jwksKeys: Gauge = registeredGauge(
  KEYS,
  "Signing keys of the identity provider's key set in use (0 once it is older than 3 x JWT_JWKS_REFRESH_S)",
);
