import { AppException } from '../common/errors/app.exception';
import { parsePurchaseBody } from './purchase-pipeline';

const pipe = { transform: parsePurchaseBody };

function refusal(body: unknown): { status: number; code: string; message: string } {
  try {
    pipe.transform(body);
  } catch (error) {
    const e = error as AppException;
    return { status: e.getStatus(), code: e.code, message: e.message };
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

describe('parsePurchaseBody', () => {
  it('reads an absent body or an absent quantity as one unit', () => {
    expect(pipe.transform(undefined)).toEqual({ quantity: 1 });
    expect(pipe.transform({})).toEqual({ quantity: 1 });
  });

  it('keeps an integer quantity from 1 to 10,000', () => {
    expect(pipe.transform({ quantity: 1 })).toEqual({ quantity: 1 });
    expect(pipe.transform({ quantity: 10_000 })).toEqual({ quantity: 10_000 });
  });

  it.each([['1'], [0], [-3], [1.5], [1e15], [10_001], [null], [true], [Number.NaN]])(
    'refuses quantity %p with 400 VALIDATION_FAILED',
    (quantity) => {
      expect(refusal({ quantity })).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
        message: 'quantity must be an integer from 1 to 10000',
      });
    },
  );

  it('refuses an unknown field by name, without coercing or dropping it', () => {
    expect(refusal({ quantity: 1, priceCents: 0 })).toMatchObject({
      status: 400,
      message: 'property priceCents should not exist',
    });
  });

  it.each([[null], [[{ quantity: 1 }]], ['1'], [7]])('refuses a body that is not a JSON object: %p', (body) => {
    expect(refusal(body)).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'the request body must be a JSON object',
    });
  });

  it('ignores inherited properties (a prototype is not part of the body)', () => {
    expect(pipe.transform(Object.create({ priceCents: 0 }))).toEqual({ quantity: 1 });
  });
});
