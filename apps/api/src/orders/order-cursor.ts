import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { isPositiveId } from '../common/positive-id';

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
export const encodeCursor = (last: OrderPosition): string =>
  Buffer.from(`t:${last.createdUs}:${last.id}`).toString('base64url');

export function decodeCursor(cursor: string): OrderPosition | { id: string; createdUs?: undefined } {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  // The id is checked against bigint's range too: the query would fail (a 500) on a larger one.
  const positioned = /^t:(0|[1-9][0-9]{0,17}):([0-9]+)$/.exec(decoded);
  if (positioned && isPositiveId(positioned[2])) return { createdUs: positioned[1], id: positioned[2] };
  const idOnly = /^o:([0-9]+)$/.exec(decoded);
  if (idOnly && isPositiveId(idOnly[1])) return { id: idOnly[1] };
  throw new AppException(ErrorCode.ValidationFailed, 'cursor is not a cursor this API issued');
}
