import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { WaitingRoomService } from './waiting-room.service';

/** The service's one gate on its Redis calls (joins, polls, the summary), without the rest of it. */
const gate = Object.create(WaitingRoomService.prototype) as {
  redis<T>(work: () => Promise<T>): Promise<T>;
};

describe('the waiting room when its Redis calls fail', () => {
  it('answers 503 DEPENDENCY_UNAVAILABLE while Redis is unreachable (no database fallback)', async () => {
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    const refusal = await gate.redis(() => Promise.reject(unreachable)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppException);
    expect((refusal as AppException).code).toBe(ErrorCode.DependencyUnavailable);
  });

  it('throws any other failure (a script error, a malformed reply) as it is', async () => {
    const bug = Object.assign(new Error('ERR user_script:1: Script attempted to access nonexistent global variable'), {
      name: 'ReplyError',
    });
    await expect(gate.redis(() => Promise.reject(bug))).rejects.toBe(bug);
    const parsed = new Error('the batch answered fewer results than it was sent');
    await expect(gate.redis(() => Promise.reject(parsed))).rejects.toBe(parsed);
  });
});
