import { TicketSigner } from './ticket-signer';
import { waitingRoomKey } from './waiting-room-secret';

describe('TicketSigner', () => {
  const signer = new TicketSigner(waitingRoomKey(undefined, 'a-jwt-secret-of-enough-length-for-tests'));

  it('reads back the ticket it signed, whatever the user id, in under 100 characters', () => {
    for (const userId of ['u1', 'user.with.dots', 'üser|1', 'x'.repeat(128)]) {
      const userTag = signer.userTag(userId);
      const ticket = signer.ticket({
        productId: '9223372036854775807',
        epoch: 'AbCdEfGh',
        number: 999_999_999_999_999,
        userTag,
      });
      expect(signer.readTicket(ticket)).toEqual({
        productId: '9223372036854775807',
        epoch: 'AbCdEfGh',
        number: 999_999_999_999_999,
        userTag,
      });
      expect(ticket.length).toBeLessThanOrEqual(100);
      expect(ticket).not.toContain(userId);
    }
    expect(signer.userTag('u1')).not.toBe(signer.userTag('u2'));
  });

  it('refuses a ticket signed with another key, or any altered field', () => {
    const other = new TicketSigner(waitingRoomKey('another-secret-that-is-32-bytes-long!!', undefined));
    expect(
      signer.readTicket(other.ticket({ productId: '42', epoch: 'e1', number: 7, userTag: signer.userTag('u1') })),
    ).toBeNull();
    const ticket = signer.ticket({ productId: '42', epoch: 'e1', number: 7, userTag: signer.userTag('u1') });
    const fields = ticket.split('.');
    for (let i = 0; i < fields.length; i++) {
      const altered = [...fields];
      altered[i] = i === 3 ? '8' : `${altered[i]}x`;
      expect(signer.readTicket(altered.join('.'))).toBeNull();
    }
    expect(signer.readTicket(undefined)).toBeNull();
    expect(signer.readTicket('x'.repeat(600))).toBeNull();
  });

  it('never takes an admission for a ticket or a ticket for an admission', () => {
    const userTag = signer.userTag('u1');
    const admission = signer.admission({
      productId: '42',
      epoch: 'e1',
      place: 3,
      expiresAtMs: 1_800_000_000_000,
      userTag,
    });
    expect(signer.readAdmission(admission)).toEqual({
      productId: '42',
      epoch: 'e1',
      place: 3,
      expiresAtMs: 1_800_000_000_000,
      userTag,
    });
    expect(signer.readTicket(admission)).toBeNull();
    expect(signer.readAdmission(signer.ticket({ productId: '42', epoch: 'e1', number: 3, userTag }))).toBeNull();
  });

  it('derives a key from JWT_SECRET that differs from the JWT secret itself, and needs one of the two', () => {
    const derived = waitingRoomKey(undefined, 'a-jwt-secret-of-enough-length-for-tests');
    expect(derived.equals(Buffer.from('a-jwt-secret-of-enough-length-for-tests'))).toBe(false);
    expect(derived).toHaveLength(32);
    expect(() => waitingRoomKey(undefined, undefined)).toThrow(/WAITING_ROOM_SECRET/);
  });
});
