import { decodeCursor, encodeCursor } from './order-cursor';

describe('order cursors', () => {
  it('round-trips the position (createdAt in microseconds, id) of the last order of a page', () => {
    const position = { createdUs: '1795478400123456', id: '9223372036854775807' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it('still accepts the id-only cursors it issued before', () => {
    expect(decodeCursor(Buffer.from('o:42').toString('base64url'))).toEqual({ id: '42' });
  });

  it.each([
    '',
    'abc',
    Buffer.from('o:0').toString('base64url'),
    Buffer.from('o:1;DROP').toString('base64url'),
    Buffer.from('x:5').toString('base64url'),
    Buffer.from('t:1:').toString('base64url'),
    Buffer.from('t:-1:5').toString('base64url'),
    Buffer.from('t:1:9223372036854775808').toString('base64url'),
    Buffer.from('o:9999999999999999999').toString('base64url'),
    Buffer.from('t:1:01').toString('base64url'),
  ])('refuses a cursor it did not issue: %p', (cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
