import { runLoad } from './http-load';
import type { WrkResult, WrkSpec } from './wrk';

/**
 * The load of a WrkSpec from autocannon in this process: a Node client, which shares the cores
 * with the API as a crowd's test harness would, and reads each socket's answer more slowly than
 * wrk, so the API holds its requests and sockets longer. Answers are counted by status alone.
 */
export async function nodeClientLoad(spec: WrkSpec): Promise<WrkResult> {
  const url = new URL(spec.url);
  const load = await runLoad({
    urls: [url.origin],
    path: url.pathname,
    method: spec.method,
    body: spec.body,
    connections: spec.connections,
    seconds: spec.seconds,
    tokens: spec.tokens,
  });
  return { ...load, byAnswer: { ...load.byStatus } };
}
