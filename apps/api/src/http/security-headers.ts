import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { HelmetOptions } from 'helmet';

export type HeaderSet = Readonly<Record<string, string>>;

/**
 * Helmet's policy for a JSON API: a response is never a document to render, frame or sniff, so
 * the CSP forbids everything and framing is denied; the headers that only steer how a browser
 * treats a web page (opener isolation, DNS prefetch, the old XSS auditor, IE downloads, origin
 * agent clusters) are left out.
 */
const JSON_API: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xFrameOptions: { action: 'deny' },
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPoweredBy: false,
  xXssProtection: false,
};

/** Swagger UI at /docs is a web page with scripts and styles: the same policy without the CSP. */
const DOCS_PAGE: HelmetOptions = { ...JSON_API, contentSecurityPolicy: false };

/**
 * The headers helmet would set, computed once. Helmet's middleware sets the same values on every
 * response (none depends on the request with these options), so the hot routes copy a ready
 * object instead of running helmet per request.
 */
export function helmetHeaders(options: HelmetOptions): HeaderSet {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

export const jsonApiSecurityHeaders = (): HeaderSet => helmetHeaders(JSON_API);
export const docsPageSecurityHeaders = (): HeaderSet => helmetHeaders(DOCS_PAGE);
