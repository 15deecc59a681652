import { appCell, CpuBenchEnv } from './cpu-cells';
import { userTokens } from './tokens';

/** Tickets the poll cell walks: enough that polls of one ticket are far apart, as in a sale. */
const POLL_TICKETS = 10_000;
const JOIN_CONCURRENCY = 32;

/**
 * A queue that admits one buyer a second and holds plenty of stock: during a cell almost every
 * ticket stays WAITING, the state nearly all polls of a sale find.
 */
export const QUEUED_PRODUCT = { stock: 100_000_000, perUserLimit: 1, waitingRoom: { admitPerSecond: 1, admissionTtlS: 600 } };

/** Joins `count` distinct users to the product's queue and returns their tickets' poll paths. */
async function ticketPaths(url: string, productId: string, count: number): Promise<string[]> {
  const tokens = userTokens(count, `ticket${productId}`);
  const paths: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const res = await fetch(`${url}/products/${productId}/queue`, { method: 'POST', headers: { authorization: `Bearer ${tokens[i]}` } });
      const body = (await res.json()) as { ticket?: string };
      if (res.status !== 200 || !body.ticket) throw new Error(`joining the bench queue failed: HTTP ${res.status}`);
      paths[i] = `/products/${productId}/queue/${encodeURIComponent(body.ticket)}`;
    }
  };
  await Promise.all(Array.from({ length: JOIN_CONCURRENCY }, worker));
  return paths;
}

const ok200 = (load: { byStatus: Record<string, number> }) => load.byStatus['200'] ?? 0;

/** A poll of a waiting ticket, `GET /products/:id/queue/:ticket`, each request another ticket. */
export const pollCell = (env: CpuBenchEnv) =>
  appCell(env, {
    name: `waiting-room poll, ${POLL_TICKETS} distinct tickets`,
    product: QUEUED_PRODUCT,
    paths: (url, productId) => ticketPaths(url, productId!, POLL_TICKETS),
    spec: (url, productId) => ({ url: `${url}/products/${productId}/queue`, method: 'GET' }),
    users: false,
    answered: ok200,
  });

/**
 * A join, `POST /products/:id/queue`, every request from another user (a first join: a new
 * ticket). The warm-up's users are others, so the measured joins are new ones until the list wraps.
 */
export const joinCell = (env: CpuBenchEnv) =>
  appCell(env, {
    name: `waiting-room join, ${env.users} distinct users`,
    product: QUEUED_PRODUCT,
    // wrk's script always sends a JSON content type, which Fastify refuses without a body.
    spec: (url, productId) => ({ url: `${url}/products/${productId}/queue`, method: 'POST', body: '{}' }),
    users: true,
    answered: ok200,
  });
