/**
 * Copies every reflect-metadata entry of one function onto another, so that a wrapper keeps
 * what decorators applied before it stored on the original (routes, guards, pipes, HTTP code,
 * Swagger). Decorators applied after the wrapper write to the wrapper itself.
 */
export function copyOwnMetadata(from: object, to: object): void {
  for (const key of Reflect.getOwnMetadataKeys(from)) {
    Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, from), to);
  }
}
