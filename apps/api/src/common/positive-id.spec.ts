import { isPositiveId } from './positive-id';

describe('isPositiveId: a positive signed 64-bit integer in decimal', () => {
  it.each(['1', '42', '999999999999999999', '9223372036854775807'])('accepts %p', (value) => {
    expect(isPositiveId(value)).toBe(true);
  });

  it.each([
    '0',
    '-1',
    '01',
    '1.5',
    '1e3',
    ' 1',
    '1 ',
    '',
    '9223372036854775808',
    '9999999999999999999',
    '12345678901234567890',
    '０１',
  ])('refuses %p', (value) => {
    expect(isPositiveId(value)).toBe(false);
  });

  it.each([42, 42n, null, undefined, ['1'], { id: '1' }])('refuses a value that is not a string: %p', (value) => {
    expect(isPositiveId(value)).toBe(false);
  });
});
