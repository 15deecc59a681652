import { createHmac, createSecretKey, KeyObject, timingSafeEqual } from 'node:crypto';
import { isPositiveId } from '../common/positive-id';

/** What a ticket says: the product, the queue's epoch, the ticket's number (its arrival) and its holder's user tag. */
export interface TicketClaims {
  productId: string;
  epoch: string;
  number: number;
  userTag: string;
}

/** What an admission says: who may buy what, from which place in the queue, until when. */
export interface AdmissionClaims {
  productId: string;
  epoch: string;
  place: number;
  expiresAtMs: number;
  userTag: string;
}

const MAX_LENGTH = 256;
const SIGNATURE_BYTES = 16;
const USER_TAG_BYTES = 12;
const NUMBER = /^[1-9][0-9]{0,14}$/;
const USER_TAG = /^[A-Za-z0-9_-]{16}$/;
const EPOCH = /^[A-Za-z0-9_-]{1,16}$/;

/**
 * Signs and checks tickets and admissions: dot-separated fields and a truncated HMAC-SHA256
 * (128 bits) over them, base64url. Self-describing: any instance reads a ticket's place and
 * holder from the string itself, with no state of its own. The holder is a keyed tag of the user
 * id, not the id: tickets travel in URLs (and so in proxies' logs), and a tag of fixed length
 * keeps them under Fastify's 100-character limit on a path parameter. Anything unsigned,
 * altered, or malformed is refused as a whole (null), never half-read.
 */
export class TicketSigner {
  // A KeyObject, imported once: Node 24 imports a Buffer key again on every createHmac, which made
  // a poll's HMAC cost 4-5x what it does on Node 20.
  private readonly key: KeyObject;

  constructor(key: Buffer) {
    this.key = createSecretKey(key);
  }

  /** The tag that stands for a user in tickets and admissions (96 bits of an HMAC of the id). */
  userTag(userId: string): string {
    return createHmac('sha256', this.key)
      .update(`user|${userId}`)
      .digest()
      .subarray(0, USER_TAG_BYTES)
      .toString('base64url');
  }

  ticket(claims: TicketClaims): string {
    return this.sign(['t1', claims.productId, claims.epoch, String(claims.number), claims.userTag]);
  }

  admission(claims: AdmissionClaims): string {
    return this.sign([
      'a1',
      claims.productId,
      claims.epoch,
      String(claims.place),
      String(claims.expiresAtMs),
      claims.userTag,
    ]);
  }

  readTicket(raw: unknown): TicketClaims | null {
    const fields = this.verified(raw, 't1', 5);
    if (!fields || !EPOCH.test(fields[2]) || !NUMBER.test(fields[3]) || !USER_TAG.test(fields[4])) return null;
    return { productId: fields[1], epoch: fields[2], number: Number(fields[3]), userTag: fields[4] };
  }

  readAdmission(raw: unknown): AdmissionClaims | null {
    const fields = this.verified(raw, 'a1', 6);
    if (
      !fields ||
      !EPOCH.test(fields[2]) ||
      !NUMBER.test(fields[3]) ||
      !NUMBER.test(fields[4]) ||
      !USER_TAG.test(fields[5])
    )
      return null;
    return {
      productId: fields[1],
      epoch: fields[2],
      place: Number(fields[3]),
      expiresAtMs: Number(fields[4]),
      userTag: fields[5],
    };
  }

  private sign(fields: string[]): string {
    const body = fields.join('.');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The fields of a well-formed, correctly signed string of `kind`; null otherwise. */
  private verified(raw: unknown, kind: string, count: number): string[] | null {
    if (typeof raw !== 'string' || raw.length > MAX_LENGTH) return null;
    const cut = raw.lastIndexOf('.');
    if (cut < 0) return null;
    const body = raw.slice(0, cut);
    const given = Buffer.from(raw.slice(cut + 1), 'base64url');
    if (given.length !== SIGNATURE_BYTES || !timingSafeEqual(given, this.mac(body))) return null;
    const fields = body.split('.');
    if (fields.length !== count || fields[0] !== kind || !isPositiveId(fields[1])) return null;
    return fields;
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, SIGNATURE_BYTES);
  }
}
