import { Injectable, PipeTransform } from '@nestjs/common';
import { AppException } from './errors/app.exception';
import { ErrorCode } from './errors/error-code';

const MAX_BIGINT = 9223372036854775807n;

/** Path ids are positive bigint strings; anything else is a client error, not a lookup. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    // Only a 19-digit id can pass the bigint range; shorter ones skip the BigInt allocation.
    if (typeof value !== 'string' || !/^[1-9][0-9]{0,18}$/.test(value) || (value.length === 19 && BigInt(value) > MAX_BIGINT)) {
      throw new AppException(ErrorCode.ValidationFailed, 'id must be a positive integer');
    }
    return value;
  }
}
