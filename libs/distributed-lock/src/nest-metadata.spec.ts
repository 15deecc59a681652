// The package states two of Nest's metadata names itself (src/nest-metadata.ts) instead of importing
// them from Nest's private paths; this spec, which never ships, holds them to the installed Nest's.
import { ROUTE_ARGS_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import {
  NEST_NAMED_ROUTE_ARG_TYPES,
  NEST_ROUTE_ARGS_METADATA,
  NEST_SELF_DECLARED_DEPS_METADATA,
} from './nest-metadata';

describe("Nest's metadata names as the package states them", () => {
  it('match the installed Nest', () => {
    expect(NEST_ROUTE_ARGS_METADATA).toBe(ROUTE_ARGS_METADATA);
    expect(NEST_SELF_DECLARED_DEPS_METADATA).toBe(SELF_DECLARED_DEPS_METADATA);
    expect([...NEST_NAMED_ROUTE_ARG_TYPES].sort()).toEqual(
      [RouteParamtypes.BODY, RouteParamtypes.QUERY, RouteParamtypes.PARAM].sort(),
    );
  });
});
