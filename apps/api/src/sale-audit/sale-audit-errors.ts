import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

export const noBeaconRound = (productId: string) =>
  new AppException(ErrorCode.NotFound, `the sale of product ${productId} committed to no beacon round`);
export const beaconInvalid = (round: number) =>
  new AppException(
    ErrorCode.BeaconInvalid,
    `not the chain's signature of the sale's committed beacon round (${round} was sent; see saleCommitment.beacon)`,
  );
export const beaconClosed = (productId: string) =>
  new AppException(
    ErrorCode.BeaconClosed,
    `the draw of product ${productId} is decided already (or its deadline passed): see GET /products/${productId}/queue/audit`,
  );
