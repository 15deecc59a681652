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
