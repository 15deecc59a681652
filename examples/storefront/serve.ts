import { join } from 'node:path';
import { parseArgs } from 'node:util';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

export interface Storefront {
  /** The page's origin, e.g. http://127.0.0.1:8080 (what CORS_ORIGINS must list). */
  origin: string;
  /** The page opened on a product: settings travel in the URL fragment, which is never sent to a server. */
  pageUrl(settings: { api: string; product: string; token?: string }): string;
  close(): Promise<void>;
}

/** Serves the static storefront (examples/storefront/public) on its own origin. */
export async function serveStorefront(options: { port?: number; host?: string } = {}): Promise<Storefront> {
  const server = Fastify();
  await server.register(fastifyStatic, { root: join(__dirname, 'public') });
  const host = options.host ?? '127.0.0.1';
  await server.listen({ port: options.port ?? 0, host });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const origin = `http://${host}:${port}`;
  return {
    origin,
    pageUrl: (settings) => `${origin}/#${new URLSearchParams(Object.entries(settings).filter((entry): entry is [string, string] => !!entry[1])).toString()}`,
    close: () => server.close(),
  };
}

if (require.main === module) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8080' }, host: { type: 'string', default: '127.0.0.1' } } });
  serveStorefront({ port: Number(values.port), host: values.host }).then(
    (storefront) => console.log(`storefront at ${storefront.origin}/ (allow it on the API: CORS_ORIGINS=${storefront.origin}); Ctrl-C stops it`),
    (error) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
