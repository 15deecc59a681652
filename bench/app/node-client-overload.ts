import { appCell, CpuBenchEnv, CpuCell } from './cpu-cells';
import { nodeClientLoad } from './node-client-load';

/** Sockets the Node client holds open against the instance. */
export const NODE_CLIENT_CONNECTIONS = 2000;

/**
 * An overload from a Node client holding 2,000 sockets, all buying one hot product (distinct
 * users, ample stock) straight at one instance; goodput is the 201s, and the cell's peak RSS is
 * the instance's under that crowd.
 */
export const nodeClientOverloadCell = (env: CpuBenchEnv): Promise<CpuCell> =>
  appCell(env, {
    name: `overload: a Node client holding ${NODE_CLIENT_CONNECTIONS} connections on one hot product`,
    product: { stock: 100_000_000, perUserLimit: 1_000_000 },
    spec: (url, productId) => ({
      url: `${url}/products/${productId}/purchase`,
      method: 'POST',
      body: '{"quantity":1}',
    }),
    connections: NODE_CLIENT_CONNECTIONS,
    seconds: env.spikeSeconds,
    users: true,
    answered: (load) => load.byStatus['201'] ?? 0,
    spike: true,
    client: nodeClientLoad,
  });
