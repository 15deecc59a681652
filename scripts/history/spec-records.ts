import { OpRecord } from './format';

/** The one product the history specs sell. */
export const SPEC_PRODUCT = '7';

/** A stock read of the spec product that answered `stock`, sent at `t` and answered 5 ms later. */
export const readRecord = (stock: number, t: number): OpRecord => ({
  op: 'read',
  productId: SPEC_PRODUCT,
  stock,
  status: 200,
  invokeMs: t,
  completeMs: t + 5,
});
