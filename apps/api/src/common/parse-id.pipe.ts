import { Injectable, PipeTransform } from '@nestjs/common';
import { AppException } from './errors/app.exception';
import { ErrorCode } from './errors/error-code';
import { isPositiveId } from './positive-id';

/** Path ids are positive bigint strings; anything else is a client error, not a lookup. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isPositiveId(value)) {
      throw new AppException(ErrorCode.ValidationFailed, 'id must be a positive integer');
    }
    return value;
  }
}
