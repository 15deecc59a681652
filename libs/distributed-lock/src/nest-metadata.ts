// Two pieces of NestJS's reflection metadata that the package reads or writes. Nest exports neither
// from a public entry point, and a deep import (`@nestjs/common/constants`) is a private path that
// a Nest release may close, so their values are stated here. Both have been the same from Nest 8
// through 12; the package's consumer matrix (Nest 11 and 12) runs `@Param` binding and the testing
// fake against each, so a Nest release that changes them fails there, not in a user's app.

/** Where `@Param('x')`, `@Body('x')`, `@Query('x')` record the argument index they bind, per method. */
export const NEST_ROUTE_ARGS_METADATA = '__routeArguments__';

/** The `paramtype` numbers of those three decorators in that metadata's keys (`"<paramtype>:<index>"`). */
export const NEST_NAMED_ROUTE_ARG_TYPES: ReadonlySet<number> = new Set([
  3, // BODY
  4, // QUERY
  5, // PARAM
]);

/** Constructor injections declared with `@Inject(token)` on a class, which its subclasses inherit. */
export const NEST_SELF_DECLARED_DEPS_METADATA = 'self:paramtypes';
