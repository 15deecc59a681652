import { encodeKeySegment } from './lock-key.encoding';
import { LockKeyResolutionError } from './lock-key-resolution.error';
import { KeyTemplatePart, parseKeyTemplate } from './lock-key.template';
import { namedRouteArgIndexes } from './route-arg-bindings';

/** What `@WithLock` accepts as its key: a template, several templates, or a function of the arguments. */
export type LockKeySource = string | string[] | ((...args: any[]) => string | string[]);

/** Builds the lock key (or keys) of one call from its arguments; throws LockKeyResolutionError. */
export type LockKeyResolver = (args: unknown[]) => string | string[];

type Scalar = string | number | bigint | boolean;

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
 * Creates the resolver for one decorated method. Templates are parsed now; the route argument
 * bindings are read at the first call, when every decorator of the class has run.
 */
export function createLockKeyResolver(source: LockKeySource, target: object, methodName: string | symbol): LockKeyResolver {
  const method = `${target.constructor.name}.${String(methodName)}`;
  if (typeof source === 'function') return (args) => checkedKeys(source(...args), method);
  const templates = (Array.isArray(source) ? source : [source]).map(parseKeyTemplate);
  if (templates.length === 0) throw new Error(`@WithLock on ${method} needs at least one key template`);
  let boundIndexes: Map<string, number> | undefined;

  const valueOf = (name: string, args: unknown[]): string => {
    boundIndexes ??= namedRouteArgIndexes(target, methodName);
    const index = boundIndexes.get(name);
    const lookup = index !== undefined ? { found: true, value: args[index] } : firstObjectWith(args, name);
    if (!lookup.found) {
      throw new LockKeyResolutionError(
        `Lock key placeholder <${name}> of ${method} did not resolve: no @Param/@Body/@Query('${name}') argument and no object argument with a '${name}' property`,
        method,
        name,
      );
    }
    if (!isUsableScalar(lookup.value)) {
      throw new LockKeyResolutionError(
        `Lock key placeholder <${name}> of ${method} resolved to ${describe(lookup.value)}; expected a non-empty string, a finite number, a bigint or a boolean`,
        method,
        name,
      );
    }
    return encodeKeySegment(String(lookup.value));
  };

  const render = (parts: KeyTemplatePart[], args: unknown[]) =>
    parts.map((part) => ('literal' in part ? part.literal : valueOf(part.placeholder, args))).join('');

  return (args) => (templates.length === 1 && !Array.isArray(source) ? render(templates[0], args) : templates.map((parts) => render(parts, args)));
}

function checkedKeys(keys: unknown, method: string): string | string[] {
  const list = Array.isArray(keys) ? keys : [keys];
  const valid = list.length > 0 && list.every((key) => typeof key === 'string' && key.length > 0);
  if (!valid) {
    throw new LockKeyResolutionError(`The lock key function of ${method} returned ${describe(keys)}; expected a non-empty string or array of them`, method);
  }
  return keys as string | string[];
}
