import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

/** Cursors are opaque to clients: the last id of the page, base64url-encoded. */
export const encodeCursor = (lastId: string): string => Buffer.from(`o:${lastId}`).toString('base64url');

export function decodeCursor(cursor: string): string {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^o:([1-9][0-9]{0,18})$/.exec(decoded);
  if (!match) throw new AppException(ErrorCode.ValidationFailed, 'cursor is not a cursor this API issued');
  return match[1];
}
