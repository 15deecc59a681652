import { resolve } from 'node:path';
import { checkHistory, HistoryCheck } from '../../../scripts/history/check-history';
import { OpRecord } from '../../../scripts/history/format';
import { readFinalOrders } from '../../../scripts/history/final-state';
import { HistoryLog } from '../../../scripts/history/writer';
import { RESULTS_DIR } from '../../../scripts/chaos-report';
import { ApiResponse, Send } from '../../support/api-client';
import { Verdict } from './checks';

type Answer = ApiResponse | Error;
const isResponse = (res: Answer): res is ApiResponse => typeof (res as ApiResponse).status === 'number' && typeof (res as ApiResponse).raw === 'string';

/** The answer part of a history record: status and code, or the transport failure. */
export function answerFields(res: Answer): Pick<OpRecord, 'status' | 'code' | 'error'> {
  if (!isResponse(res)) return { error: res.name === 'TimeoutError' ? 'TIMEOUT' : ((res.cause as { code?: string } | undefined)?.code ?? res.name) };
  const code = typeof res.body?.code === 'string' ? res.body.code : undefined;
  return code === undefined ? { status: res.status } : { status: res.status, code };
}

/** A record's own fields, without the times and the answer `recorded` fills in. */
export type OpFields = OpRecord extends infer R ? (R extends OpRecord ? Omit<R, 'invokeMs' | 'completeMs' | 'status' | 'code' | 'error'> : never) : never;

/**
 * Sends one request and records it in the history with its invoke and complete times; `fill`
 * adds what the answer told (the order's status, the stock seen). Never throws for a transport
 * failure: that is an answer too (unknown).
 */
export async function recorded(history: HistoryLog, send: Send, request: Parameters<Send>[0], fields: OpFields, fill?: (res: ApiResponse) => Partial<OpRecord>): Promise<Answer> {
  const invokeMs = Date.now();
  let res: Answer;
  try {
    res = await send(request);
  } catch (error) {
    res = error as Error;
  }
  const extra = isResponse(res) && fill ? fill(res) : {};
  history.add({ ...fields, invokeMs, completeMs: Date.now(), ...answerFields(res), ...extra } as OpRecord);
  return res;
}

/** Operations of a kind the server answered with a success (2xx but 202): they took effect. */
export const succeeded = (history: HistoryLog, op: OpRecord['op']): number => history.ops.filter((r) => r.op === op && r.status !== undefined && r.status >= 200 && r.status < 300 && r.status !== 202).length;

export const orderStatusOf = (res: ApiResponse): Partial<OpRecord> => (res.status === 200 && typeof res.body?.status === 'string' ? { orderStatus: res.body.status } : {});
export const stockOf = (res: ApiResponse): Partial<OpRecord> => (res.status === 200 && typeof res.body?.stock === 'number' ? { stock: res.body.stock } : {});

/**
 * The history checker's verdicts on a scenario's traffic: the final orders of its products read
 * once from Postgres, judged against what the clients were told and the stock the test created.
 * The history is kept in reports/chaos/<id>.history.jsonl.
 */
export async function historyVerdicts(id: string, databaseUrl: string, history: HistoryLog): Promise<{ verdicts: Verdict[]; check: HistoryCheck }> {
  history.save(resolve(RESULTS_DIR, `${id}.history.jsonl`));
  const finalReadAtMs = Date.now();
  const orders = await readFinalOrders(history.meta.products.map((p) => p.productId), { databaseUrl });
  const check = checkHistory(history.meta, history.ops, orders, { finalReadAtMs });
  const verdicts = check.rules.map((r) => ({
    check: `history: ${r.rule}`,
    ok: r.ok,
    detail: r.ok ? `${r.checked} checked` : `${r.violations} of ${r.checked}: ${r.examples.join('; ')}`,
  }));
  const f = check.figures;
  verdicts.push({
    check: 'history: judged',
    ok: f.purchases > 0 && history.meta.products.length > 0,
    detail: `${f.ops} operation(s), ${f.purchases} purchase(s), ${f.created} created, ${f.indeterminate} indeterminate, ${f.orders} order(s); checked in ${f.checkMs} ms`,
  });
  return { verdicts, check };
}
