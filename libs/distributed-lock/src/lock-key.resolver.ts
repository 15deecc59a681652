import { NEST_NAMED_ROUTE_ARG_TYPES, NEST_ROUTE_ARGS_METADATA } from './nest-metadata';

/** What `@WithLock` accepts as its key: a template, several templates, or a function of the arguments. */
export type LockKeySource = string | string[] | ((...args: any[]) => string | string[]);

/** Builds the lock key (or keys) of one call from its arguments; throws LockKeyResolutionError. */
type LockKeyResolver = (args: unknown[]) => string | string[];

/** A parsed template such as `stock:<productId>`: literal text and placeholders. */
type KeyTemplatePart = { literal: string } | { placeholder: string };

type Scalar = string | number | bigint | boolean;

/**
 * Thrown by `@WithLock` before any lock is taken when a key cannot be built from the call's
 * arguments: a placeholder with no value, an empty value, or a value that is not a scalar.
 */
export class LockKeyResolutionError extends Error {
  constructor(
    message: string,
    /** `Class.method` whose lock key could not be built. */
    readonly method: string,
    /** The placeholder that failed, when the key comes from a template. */
    readonly placeholder?: string,
  ) {
    super(message);
    this.name = 'LockKeyResolutionError';
  }
}

// Characters with a meaning in our keys (`:` separates segments, `{}` is a Cluster hash tag),
// in Redis patterns (`*?[]`), or invisible ones; `%` itself so that encoding stays reversible
// and therefore two different values can never produce the same key.
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
const RESERVED = /[%:{}*?[\]\\\s\x00-\x1f\x7f]/gu;

function percentEncode(character: string): string {
  return Array.from(
    Buffer.from(character, 'utf8'),
    (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

/** Encodes a placeholder value for use as one segment of a lock key. */
export function encodeKeySegment(value: string): string {
  return value.replace(RESERVED, percentEncode);
}

const PLACEHOLDER_NAME = /^[A-Za-z_$][\w$]*$/;

/** Parsed once, at decoration time, so that a malformed template fails at start-up. */
function parseKeyTemplate(template: string): KeyTemplatePart[] {
  if (template.length === 0) throw new Error('A lock key template must not be empty');
  const malformed = (problem: string) => new Error(`Lock key template "${template}" has ${problem}`);
  // Odd pieces are the `<...>` placeholders; a `<` or `>` left in a literal piece is unmatched.
  return template.split(/(<[^<>]*>)/).flatMap((piece, i): KeyTemplatePart[] => {
    if (i % 2 === 1) {
      const name = piece.slice(1, -1);
      if (!PLACEHOLDER_NAME.test(name)) throw malformed(`an invalid placeholder <${name}>`);
      return [{ placeholder: name }];
    }
    const open = piece.indexOf('<');
    const close = piece.indexOf('>');
    if (close !== -1 && (open === -1 || close < open)) throw malformed("a '>' without a matching '<'");
    if (open !== -1) throw malformed("a '<' without a closing '>'");
    return piece.length > 0 ? [{ literal: piece }] : [];
  });
}

/**
 * Maps the names bound with `@Param('x')`, `@Body('x')` or `@Query('x')` on a method to the
 * index of the argument that receives them. Nest stores this on the class, keyed by method.
 */
function namedRouteArgIndexes(target: object, methodName: string | symbol): Map<string, number> {
  const metadata: Record<string, { index: number; data?: unknown }> =
    Reflect.getMetadata(NEST_ROUTE_ARGS_METADATA, target.constructor, methodName) ?? {};
  const indexes = new Map<string, number>();
  for (const [key, { index, data }] of Object.entries(metadata)) {
    const [paramtype] = key.split(':');
    // Custom param decorators use keys like "<uuid>__customRouteArgs__:0": not numeric.
    if (!/^\d+$/.test(paramtype) || !NEST_NAMED_ROUTE_ARG_TYPES.has(Number(paramtype))) continue;
    if (typeof data === 'string' && data.length > 0 && !indexes.has(data)) indexes.set(data, index);
  }
  return indexes;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'an empty string';
  if (typeof value === 'number') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

function isUsableScalar(value: unknown): value is Scalar {
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'bigint' || typeof value === 'boolean';
}

function firstObjectWith(args: unknown[], name: string): { found: boolean; value?: unknown } {
  for (const arg of args) {
    if (typeof arg === 'object' && arg !== null && !Array.isArray(arg) && name in arg) {
      return { found: true, value: (arg as Record<string, unknown>)[name] };
    }
  }
  return { found: false };
}

/**
 * Creates the resolver for one decorated method. A placeholder takes the argument bound with
 * `@Param/@Body/@Query('name')`, else the `name` property of the first object argument that has
 * one; values are escaped so they cannot add segments or collide. Templates are parsed now; the
 * route bindings are read at the first call, when every decorator of the class has run.
 */
export function createLockKeyResolver(
  source: LockKeySource,
  target: object,
  methodName: string | symbol,
): LockKeyResolver {
  const method = `${target.constructor.name}.${String(methodName)}`;
  if (typeof source === 'function') return (args) => checkedKeys(source(...args), method);
  const templates = (Array.isArray(source) ? source : [source]).map(parseKeyTemplate);
  if (templates.length === 0) throw new Error(`@WithLock on ${method} needs at least one key template`);
  let boundIndexes: Map<string, number> | undefined;

  const valueOf = (name: string, args: unknown[]): string => {
    boundIndexes ??= namedRouteArgIndexes(target, methodName);
    const index = boundIndexes.get(name);
    const lookup = index !== undefined ? { found: true, value: args[index] } : firstObjectWith(args, name);
    if (!lookup.found || !isUsableScalar(lookup.value)) {
      const problem = lookup.found
        ? `resolved to ${describe(lookup.value)}; expected a non-empty string, a finite number, a bigint or a boolean`
        : `did not resolve: no @Param/@Body/@Query('${name}') argument and no object argument with a '${name}' property`;
      throw new LockKeyResolutionError(`Lock key placeholder <${name}> of ${method} ${problem}`, method, name);
    }
    return encodeKeySegment(String(lookup.value));
  };

  const render = (parts: KeyTemplatePart[], args: unknown[]) =>
    parts.map((part) => ('literal' in part ? part.literal : valueOf(part.placeholder, args))).join('');

  return (args) =>
    templates.length === 1 && !Array.isArray(source)
      ? render(templates[0], args)
      : templates.map((parts) => render(parts, args));
}

function checkedKeys(keys: unknown, method: string): string | string[] {
  const list = Array.isArray(keys) ? keys : [keys];
  const valid = list.length > 0 && list.every((key) => typeof key === 'string' && key.length > 0);
  if (!valid) {
    throw new LockKeyResolutionError(
      `The lock key function of ${method} returned ${describe(keys)}; expected a non-empty string or array of them`,
      method,
    );
  }
  return keys as string | string[];
}
