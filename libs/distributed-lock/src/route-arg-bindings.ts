// Nest exports neither the metadata key nor the enum from its entry point; these subpaths are
// the only way to read which argument `@Param('x')` binds.
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';

const NAMED_SOURCES = new Set<number>([RouteParamtypes.PARAM, RouteParamtypes.BODY, RouteParamtypes.QUERY]);

interface RouteArgMetadata {
  index: number;
  data?: unknown;
}

/**
 * Maps the names bound with `@Param('x')`, `@Body('x')` or `@Query('x')` on a method to the
 * index of the argument that receives them. Nest stores this on the class, keyed by method.
 */
export function namedRouteArgIndexes(target: object, methodName: string | symbol): Map<string, number> {
  const metadata: Record<string, RouteArgMetadata> =
    Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, methodName) ?? {};
  const indexes = new Map<string, number>();
  for (const [key, { index, data }] of Object.entries(metadata)) {
    const [paramtype] = key.split(':');
    // Custom param decorators use keys like "<uuid>__customRouteArgs__:0": not numeric.
    if (!/^\d+$/.test(paramtype) || !NAMED_SOURCES.has(Number(paramtype))) continue;
    if (typeof data === 'string' && data.length > 0 && !indexes.has(data)) indexes.set(data, index);
  }
  return indexes;
}
