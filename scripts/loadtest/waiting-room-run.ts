import { isIP } from 'node:net';
import { ApiClient, ContractProduct } from './api-client';
import { waitingRoomReport, WaitingRoomReport } from './waiting-room-report';
import { InvariantResult } from './types';
import { BuyerTrace } from './waiting-room-trace';

/** localhost, 127.0.0.0/8 or ::1: the waiting-room flow's thousands of pollers stay on this machine by default. */
export function isLoopback(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * How the run's clients get addresses of their own: against IPv4 loopback (`localhost` too) each
 * binds its sockets to a 127.x.y.z source address; otherwise (a remote target, or ::1) each sends a
 * synthetic `X-Forwarded-For`, which the target heeds only behind a proxy it trusts (TRUST_PROXY).
 */
export function addressingFor(urls: string[]): 'loopback-source' | 'x-forwarded-for' {
  const ipv4Loopback = (url: string) => {
    const host = new URL(url).hostname;
    return host === 'localhost' || (isIP(host) === 4 && host.startsWith('127.'));
  };
  return urls.every(ipv4Loopback) ? 'loopback-source' : 'x-forwarded-for';
}

/**
 * The report's waiting-room figures. Every 201 ends its buyer (BOUGHT), so the last 201 is the
 * latest of the BOUGHT buyers' purchase answers; the seed (for the pre-queue's order) from
 * the product's public queue summary, published once the sale has started.
 */
export async function summarizeWaitingRoom(
  api: ApiClient,
  product: ContractProduct,
  traces: BuyerTrace[],
  startedAtMs: number,
): Promise<WaitingRoomReport> {
  const saleStartsAtMs = product.saleStartsAt ? Date.parse(product.saleStartsAt) : null;
  const seed = saleStartsAtMs !== null ? (await api.queueSummary(product.id)).seed : null;
  let lastCreatedAtMs: number | null = null;
  for (const t of traces)
    if (t.final === 'BOUGHT' && t.purchaseAnsweredAtMs !== undefined)
      lastCreatedAtMs = Math.max(lastCreatedAtMs ?? 0, t.purchaseAnsweredAtMs);
  return waitingRoomReport(traces, {
    startedAtMs,
    saleStartsAtMs,
    seed,
    lastCreatedAtMs,
    admitPerSecond: product.waitingRoom?.admitPerSecond,
  });
}

/** The queue's promises as the buyers saw them, judged beside the stock invariants. */
export function waitingRoomInvariants(w: WaitingRoomReport): InvariantResult[] {
  const o = w.order;
  const s = w.soldOut;
  return [
    {
      name: 'admission follows queue order',
      ok: o.inversions === 0,
      severity: 'error',
      detail: `${o.inversions} inversion(s) over ${o.compared} ticket(s) (${o.admitted} seen admitted, ${o.preQueue} pre-queue)${o.examples.length ? `: ${o.examples.join('; ')}` : ''}`,
    },
    {
      name: 'polls answer SOLD_OUT within 1 s',
      ok: s.staleAnswers === 0,
      severity: 'error',
      detail:
        s.lastCreatedAtMs === null
          ? 'nothing was bought'
          : `${s.staleAnswers} poll(s) asked more than 1 s after the last 201 still answered WAITING/ADMITTED; ${s.pollers} poller(s) heard SOLD_OUT`,
    },
    {
      name: 'buyers polled no sooner than pollAfterMs',
      ok: w.earlyPolls === 0,
      severity: 'warning',
      detail: `${w.earlyPolls} early poll(s)`,
    },
  ];
}
