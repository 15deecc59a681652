import { hkdfSync } from 'node:crypto';

/**
 * The key that signs tickets and admissions: WAITING_ROOM_SECRET when set, else derived from
 * JWT_SECRET with HKDF (a separate key, so a ticket can never pass for a bearer token or the
 * other way round). Every instance derives the same key, so any of them can check a ticket.
 */
export function waitingRoomKey(secret: string | undefined, jwtSecret: string | undefined): Buffer {
  if (secret) return Buffer.from(secret, 'utf8');
  if (!jwtSecret) throw new Error('Invalid configuration: WAITING_ROOM_SECRET is required when JWT_SECRET is unset');
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(jwtSecret, 'utf8'), Buffer.alloc(0), 'flash-sale waiting room v1', 32),
  );
}
