import { AllExceptionsFilter } from '../common/errors/all-exceptions.filter';
import Fastify from 'fastify';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { EarlyRetryException, RateClock } from '../common/throttling/rate-limiter';
import { OverloadedException } from '../purchase-batches/overloaded.error';
import type { PurchaseBatches } from '../purchase-batches/purchase-batches.service';
import { PurchaseAnswer } from './purchase-answer';

/** Writes `error` as the answer of user u1's purchase of product 7; the status sent. */
async function answerWith(answer: PurchaseAnswer, error: unknown): Promise<number> {
  const fastify = Fastify();
  fastify.get('/', (_request, reply) =>
    answer.write(reply, { purchaseId: 'p-1', deadlineAt: 0, user: { id: 'u1' }, productId: '7' }, { error }),
  );
  const res = await fastify.inject({ method: 'GET', url: '/' });
  await fastify.close();
  return res.statusCode;
}

describe('PurchaseAnswer and the Retry-After it announces', () => {
  const fresh = () =>
    new PurchaseAnswer(
      { countIfLate: () => undefined } as unknown as PurchaseBatches,
      new AllExceptionsFilter(),
      new RateClock(),
    );

  it.each([
    ['503 OVERLOADED', new OverloadedException('wait_estimate', 4), 503],
    ['429 RATE_LIMITED', new AppException(ErrorCode.RateLimited, 'too many', 1), 429],
    ['503 LOCK_TIMEOUT', new AppException(ErrorCode.LockTimeout, 'busy', 1), 503],
  ])('notes a %s so that a retry before its Retry-After is refused', async (_name, error, status) => {
    const answer = fresh();
    expect(await answerWith(answer, error)).toBe(status);
    expect(answer.retries.refusal('u1', '7')).toBeInstanceOf(EarlyRetryException);
    expect(answer.retries.refusal('u2', '7')).toBeUndefined();
  });

  it('notes nothing for a refusal without Retry-After', async () => {
    const answer = fresh();
    expect(await answerWith(answer, new AppException(ErrorCode.SoldOut, 'gone'))).toBe(409);
    expect(answer.retries.refusal('u1', '7')).toBeUndefined();
  });

  it('does not move the moment when it answers an early retry', async () => {
    const answer = fresh();
    await answerWith(answer, new EarlyRetryException(5));
    expect(answer.retries.refusal('u1', '7')).toBeUndefined();
  });
});
