import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { AdmissionGate } from './admission-gate';
import type { QueueStore } from './queue-store';
import { TicketSigner } from './ticket-signer';
import { waitingRoomKey } from './waiting-room-secret';
import type { WaitingRoomMetrics } from './waiting-room.metrics';

/** A gate whose store's claim fails with `error`, and an admission it would otherwise take. */
function gateClaimingWith(error: Error) {
  const signer = new TicketSigner(waitingRoomKey(undefined, 'a-jwt-secret-of-enough-length-for-tests'));
  const store = { claim: () => Promise.reject(error) } as unknown as QueueStore;
  const gate = new AdmissionGate(store, signer, {} as WaitingRoomMetrics);
  const admission = signer.admission({
    productId: '7',
    epoch: 'AbCdEfGh',
    place: 3,
    expiresAtMs: Date.now() + 60_000,
    userTag: signer.userTag('u1'),
  });
  return { take: () => gate.take('7', 'u1', admission) };
}

describe('AdmissionGate when Redis fails', () => {
  it('answers 503 DEPENDENCY_UNAVAILABLE while Redis is unreachable (no fallback: fairness needs the queue)', async () => {
    const { take } = gateClaimingWith(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }),
    );
    const refusal = await take().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppException);
    expect((refusal as AppException).code).toBe(ErrorCode.DependencyUnavailable);
  });

  it('throws any other failure as it is: a script error is a bug, not an outage', async () => {
    const bug = Object.assign(new Error('ERR wrong kind'), { name: 'ReplyError' });
    await expect(gateClaimingWith(bug).take()).rejects.toBe(bug);
  });
});
