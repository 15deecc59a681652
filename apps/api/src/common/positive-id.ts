import { ValidateBy, ValidationOptions } from 'class-validator';

/** The largest value of a Postgres bigint (a signed 64-bit integer). */
const MAX_BIGINT = 9223372036854775807n;

/**
 * Whether `value` is a positive signed 64-bit integer written in plain decimal: the one test for
 * every id a client sends (path, query, cursor). A 19-digit string can still overflow bigint, and
 * Postgres would then fail the query (22003) with a 500; the range is checked here instead.
 */
export function isPositiveId(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,18}$/.test(value)) return false;
  // Shorter strings are always in range; only 19 digits need the BigInt comparison.
  return value.length < 19 || BigInt(value) <= MAX_BIGINT;
}

/** class-validator decorator for isPositiveId. */
export const IsPositiveId = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isPositiveId',
      validator: {
        validate: isPositiveId,
        defaultMessage: (args) => `${args?.property ?? 'id'} must be a positive integer`,
      },
    },
    options,
  );
