import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../../apps/api/src/common/errors/error-code';
import { AppHarness, startApp } from '../support/app-harness';

interface DocumentedRoute {
  /** `GET /orders/:id` */
  route: string;
  /** The rows of its answers table: status → the text of those rows. */
  rows: Map<string, string>;
}

const API_MD = join(__dirname, '../../docs/API.md');
const CODES = new Set<string>([...Object.values(ErrorCode), 'PURCHASE_PENDING']);

/** docs/API.md's routes: a `### METHOD /path` heading each, then a `| status | code | when |` table. */
function documentedRoutes(): Map<string, DocumentedRoute> {
  const routes = new Map<string, DocumentedRoute>();
  let current: DocumentedRoute | undefined;
  for (const line of readFileSync(API_MD, 'utf8').split('\n')) {
    const heading = /^###\s+(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)\s*$/.exec(line);
    if (heading) routes.set(`${heading[1]} ${heading[2]}`, (current = { route: `${heading[1]} ${heading[2]}`, rows: new Map() }));
    else if (/^#{1,3}\s/.test(line)) current = undefined;
    const row = /^\|\s*(\d{3})\s*\|(.*)\|\s*$/.exec(line);
    if (current && row) current.rows.set(row[1], `${current.rows.get(row[1]) ?? ''} ${row[2]}`);
  }
  return routes;
}

/** The Swagger document's operations as `METHOD /path` with their declared responses. */
function swaggerRoutes(document: { paths: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>> }) {
  const routes = new Map<string, Record<string, { description?: string }>>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      routes.set(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`, operation.responses ?? {});
    }
  }
  return routes;
}

describe('docs/API.md against the Swagger document the app serves', () => {
  let harness: AppHarness;
  let swagger: ReturnType<typeof swaggerRoutes>;
  const documented = documentedRoutes();

  beforeAll(async () => {
    harness = await startApp();
    const res = await harness.app.inject({ method: 'GET', url: '/docs-json' });
    expect(res.statusCode).toBe(200);
    swagger = swaggerRoutes(res.json());
  });
  afterAll(() => harness.close());

  it('reads both (the readers work)', () => {
    expect(documented.size).toBeGreaterThan(15);
    expect(documented.get('POST /products/:id/purchase')?.rows.get('409')).toMatch(/SOLD_OUT/);
    expect(swagger.has('POST /products/:id/purchase')).toBe(true);
  });

  it('documents every route Swagger lists', () => {
    expect([...swagger.keys()].filter((route) => !documented.has(route))).toEqual([]);
  });

  it('lists in Swagger every documented route the app serves', () => {
    expect([...documented.keys()].filter((route) => !swagger.has(route))).toEqual([]);
  });

  it('documents every status Swagger declares for a route, with the codes Swagger names for it', () => {
    const gaps: string[] = [];
    for (const [route, responses] of swagger) {
      const rows = documented.get(route)?.rows;
      if (!rows) continue;
      for (const [status, response] of Object.entries(responses)) {
        const row = rows.get(status);
        if (row === undefined) {
          gaps.push(`${route}: status ${status} missing`);
          continue;
        }
        const codes = (response.description ?? '').match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? [];
        for (const code of codes.filter((c) => CODES.has(c))) if (!row.includes(code)) gaps.push(`${route}: ${status} ${code} missing`);
      }
    }
    expect(gaps).toEqual([]);
  });
});
