import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

/** Where a page ended, in the listing's order: createdAt (in microseconds since the epoch), then id. */
export interface OrderPosition {
  createdUs: string;
  id: string;
}

/**
 * Cursors are opaque to clients: the position of the page's last order, base64url-encoded.
 * Cursors of the id-only form issued before the listing was ordered by createdAt are still
 * accepted; they name the order whose position the page continues after.
 */
export const encodeCursor = (last: OrderPosition): string => Buffer.from(`t:${last.createdUs}:${last.id}`).toString('base64url');

export function decodeCursor(cursor: string): OrderPosition | { id: string; createdUs?: undefined } {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const positioned = /^t:(0|[1-9][0-9]{0,17}):([1-9][0-9]{0,18})$/.exec(decoded);
  if (positioned) return { createdUs: positioned[1], id: positioned[2] };
  const idOnly = /^o:([1-9][0-9]{0,18})$/.exec(decoded);
  if (idOnly) return { id: idOnly[1] };
  throw new AppException(ErrorCode.ValidationFailed, 'cursor is not a cursor this API issued');
}
