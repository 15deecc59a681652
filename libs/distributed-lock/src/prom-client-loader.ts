// prom-client is an optional peer dependency: it is loaded when metrics are recorded, and this
// module's types stay out of every declaration the package exports.
export type PromClient = typeof import('prom-client');

/** prom-client if the application has it installed, else undefined. */
export function loadPromClient(): PromClient | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('prom-client') as PromClient;
  } catch {
    return undefined;
  }
}
