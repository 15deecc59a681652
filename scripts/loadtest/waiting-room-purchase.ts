import { setTimeout as sleep } from 'node:timers/promises';
import { attemptIsOver, sendRecordedPurchase, settlePending } from './driver';
import { HttpTransport } from './http-transport';
import { outcomeKey } from './recorder';
import { retryDelayMs } from './retry-policy';
import { QueueDriveOptions } from './waiting-room-driver';

/**
 * One purchase attempt of an admitted buyer: one Idempotency-Key with its Admission, re-sent after
 * 503/429/transport errors as the classic flow's attempts are (same retry policy and budget); a
 * 202's outcome is asked for at its Location. `noWait` (a bot) re-sends at once, Retry-After or not.
 */
export async function buyOnce(
  o: QueueDriveOptions,
  transport: HttpTransport,
  user: { id: string; token: string },
  admission: string,
  key: string,
  deadline: number,
  noWait = false,
): Promise<{ outcome: string; completeMs: number }> {
  o.recorder.attempts++;
  for (let retry = 0; ; retry++) {
    const url = o.urls[retry % o.urls.length];
    const response = await sendRecordedPurchase(o, transport, url, user, key, user.id, { admission });
    if (response.sample.status === 202) {
      const orderId = await settlePending(o, transport, url, user, response, deadline);
      return { outcome: orderId ? '201' : '202', completeMs: Date.now() };
    }
    if (attemptIsOver(o.recorder, response, user.id, retry >= o.maxRetries || Date.now() >= deadline)) {
      return { outcome: outcomeKey(response.sample), completeMs: response.completeMs };
    }
    o.recorder.retries++;
    if (!noWait) await sleep(retryDelayMs(response.retryAfterMs, retry, o.maxRetryDelayMs));
  }
}
