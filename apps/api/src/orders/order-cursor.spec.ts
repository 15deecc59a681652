import { decodeCursor, encodeCursor } from './order-cursor';

describe('order cursors', () => {
  it('round-trips the last id of a page', () => {
    expect(decodeCursor(encodeCursor('9223372036854775807'))).toBe('9223372036854775807');
  });

  it.each(['', 'abc', Buffer.from('o:0').toString('base64url'), Buffer.from('o:1;DROP').toString('base64url'), Buffer.from('x:5').toString('base64url')])(
    'refuses a cursor it did not issue: %p',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    },
  );
});
